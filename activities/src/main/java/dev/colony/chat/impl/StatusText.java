package dev.colony.chat.impl;

import dev.colony.ant.AntStats;
import dev.colony.ant.AntStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/** An ant's status as text, the same in the CLI, the dev console and a Discord channel. */
public final class StatusText {
  private StatusText() {}

  public static String detail(AntStatus a, AntStats s, Instant now) {
    StringBuilder sb = new StringBuilder();
    sb.append(a.colony()).append('/').append(a.ant()).append(" (engine ").append(a.engine()).append(")\n");
    sb.append("  state:              ").append(state(a)).append('\n');
    sb.append("  paused:             ").append(a.paused() ? "yes (" + a.pauseReason() + ")" : "no").append('\n');
    sb.append("  queued messages:    ").append(a.queueDepth()).append('\n');
    sb.append("  sessions:           ").append(a.sessions()).append('\n');
    sb.append("  consecutive errors: ").append(a.consecutiveErrors()).append('\n');
    sb.append("  total errors:       ").append(a.totalErrors()).append('\n');
    sb.append("  next wake:          ").append(wake(a.nextWakeTime(), now)).append('\n');
    if (a.wakesOn() != null) {
      sb.append("  wakes on:           ").append(a.wakesOn())
          .append(a.pendingIssues() > 0 ? " (" + a.pendingIssues() + " issue(s) waiting)" : "").append('\n');
    }
    sb.append("  last outcome:       ").append(last(a)).append('\n');
    if (a.taskId() != null) {
      String title = a.taskTitle() == null ? "" : " · " + a.taskTitle();
      sb.append("  task:               ").append(a.taskId()).append(title.length() > 70 ? title.substring(0, 69) + "…" : title)
          .append('\n');
    }
    if (a.host() != null) {
      sb.append("  host:               ").append(a.host()).append('\n');
    }
    if (a.sandbox() != null) {
      sb.append("  sandbox:            ").append(a.sandbox().equals("off")
          ? "OFF: sessions run with the worker's powers (sandbox: off)" : a.sandbox()).append('\n');
    }
    if (a.budget() != null) {
      sb.append("  spend:              ").append(a.budget()).append('\n');
    }
    if (a.overseer() != null) {
      sb.append("  overseer:           ").append(a.overseer()).append('\n');
    }
    for (var c : a.confirmations()) {
      sb.append("  waiting for you:    #").append(c.id()).append(' ').append(c.tool()).append(": ")
          .append(c.summary()).append(" (").append(c.reason()).append("; denied at ").append(c.deadline())
          .append(")\n");
    }
    if (s != null) {
      sb.append("  uptime:             ").append(human(uptime(s, now))).append('\n');
      sb.append("  sessions by outcome: ").append(s.sessionsByOutcome().isEmpty() ? "-" : s.sessionsByOutcome()).append('\n');
      sb.append("  turns:              ").append(s.turns()).append('\n');
      // Since the ant's last `colony start`; what the budget counts (kept across a stop and start)
      // is the "spend" line above.
      sb.append("  cost since start:   ").append(s.costReported() ? String.format(Locale.ROOT, "$%.4f", s.costUsd())
          : s.sessions() == 0 ? "- (no session since the start)" : "not reported").append('\n');
      sb.append("  tokens in/out:      ").append(s.inputTokens()).append(" / ").append(s.outputTokens()).append('\n');
    }
    return sb.toString();
  }

  /**
   * Since the ant started, by the caller's clock: a query's workflow clock stands at the ant's
   * last workflow task, so {@code uptimeSeconds} said 0s for an ant started minutes ago that had
   * not had a session yet.
   */
  static Duration uptime(AntStats s, Instant now) {
    if (s.startedAtMillis() <= 0) {
      return Duration.ofSeconds(s.uptimeSeconds());
    }
    return Duration.ofMillis(Math.max(0, now.toEpochMilli() - s.startedAtMillis()));
  }

  /** {@code running session 4}, {@code waiting (next tick)}, {@code paused (budget)}. */
  static String state(AntStatus a) {
    String name = a.state().configName();
    return switch (a.state()) {
      case RUNNING, INTERRUPTING, SPAWNING -> name + " (session " + a.session() + ")";
      case WAITING, COOLING_DOWN, PAUSED, PARKED -> a.stateReason() == null ? name : name + " (" + a.stateReason() + ")";
      default -> name;
    };
  }

  private static String last(AntStatus a) {
    if (a.lastOutcome() == null) {
      return "-";
    }
    String d = a.lastDetail() == null || a.lastDetail().isEmpty() ? "" : ": " + a.lastDetail();
    String line = a.lastOutcome() + d;
    return line.length() > 60 ? line.substring(0, 59) + "…" : line;
  }

  public static String wake(String iso, Instant now) {
    if (iso == null) {
      return "-";
    }
    Instant at = Instant.parse(iso);
    long s = Duration.between(now, at).toSeconds();
    String when = s <= 0 ? "now" : "in " + human(Duration.ofSeconds(s));
    return when + " (" + iso.substring(11, Math.min(19, iso.length())) + "Z)";
  }

  public static String human(Duration d) {
    long s = d.toSeconds();
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return s / 60 + "m" + (s % 60 == 0 ? "" : s % 60 + "s");
    }
    if (s < 86400) {
      return s / 3600 + "h" + (s % 3600 / 60 == 0 ? "" : s % 3600 / 60 + "m");
    }
    return s / 86400 + "d" + (s % 86400 / 3600 == 0 ? "" : s % 86400 / 3600 + "h");
  }
}
