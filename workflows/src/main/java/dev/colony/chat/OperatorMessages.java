package dev.colony.chat;

import dev.colony.errorpolicy.Outcome;

/**
 * The text an ant posts to its channel for each event of its loop. One place so the console, the
 * CLI and Discord say exactly the same thing and tests can assert it.
 */
public final class OperatorMessages {
  private static final int DETAIL_LIMIT = 300;

  private OperatorMessages() {}

  private static String bold(String ant) {
    return "**" + ant + "**";
  }

  public static String started(String ant) {
    return "🐜 " + bold(ant) + " is starting up.";
  }

  public static String succeeded(String ant, int session, String detail) {
    String d = trim(detail);
    return "✅ " + bold(ant) + " finished session " + session + (d.isEmpty() ? "." : ": " + d);
  }

  public static String crashed(String ant, String detail, long seconds) {
    return "❌ " + bold(ant) + " crashed: " + orUnknown(detail) + ". Restarting in " + seconds + "s…";
  }

  public static String rateLimited(String ant, long seconds) {
    return "⏳ " + bold(ant) + " is rate limited. Resuming in " + seconds + "s…";
  }

  public static String permanent(String ant, String detail, long seconds) {
    return "🚫 " + bold(ant) + " encountered a permanent error: " + orUnknown(detail)
        + ". Restarting in " + seconds + "s…";
  }

  public static String billing(String ant) {
    return "💳 " + bold(ant) + " has a billing error — check your account with the model provider."
        + " Paused until resumed.";
  }

  public static String auth(String ant) {
    return "🔐 " + bold(ant) + " could not authenticate — check its credentials."
        + " Paused until resumed.";
  }

  /** The sandbox could not be made: what is missing and how to fix it, in the detail. */
  public static String sandbox(String ant, String detail) {
    return "🧱 " + bold(ant) + " did not start a session: " + orUnknown(detail)
        + ". Paused until resumed.";
  }

  public static String budget(String ant) {
    return "💰 " + bold(ant) + " went over its USD budget cap. Paused until resumed.";
  }

  public static String parked(String ant, String threshold, String lastDetail) {
    return "🛑 " + bold(ant) + " is parked after " + threshold + "; last error: " + orUnknown(lastDetail)
        + ". No more sessions until resumed (which resets the counters) or stopped.";
  }

  public static String fatal(String ant, String error) {
    return "🛑 " + bold(ant) + " is parked after a fatal error in its workflow: " + orUnknown(error)
        + ". No more sessions until its supervisor restarts it, or it is resumed or stopped.";
  }

  /** A colony budget cap (not the engine's per-session cap) paused the ant until its window rolls over. */
  public static String budgetCapped(String ant, String cap, String resetsAt) {
    return "💰 " + bold(ant) + " paused: " + cap + ". It resumes by itself at " + resetsAt
        + " (or on /resume; raise the cap with `colony start`).";
  }

  public static String budgetResumed(String ant) {
    return "▶️ " + bold(ant) + " resuming: its budget window rolled over.";
  }

  public static String restarted(String ant, String reason, boolean clean) {
    return "♻️ " + bold(ant) + " restarted by its supervisor (" + (clean ? "clean slate" : "resuming its conversation")
        + "): " + orUnknown(reason) + ".";
  }

  public static String escalated(String ant, String pattern, String reason, boolean sessionRunning) {
    return "🚨 [ESCALATION] " + bold(ant) + " appears stuck (" + pattern + "): " + orUnknown(reason) + ". "
        + (sessionRunning ? "It pauses after the current session" : "It is paused")
        + ", awaiting a human: /resume to go on, /abort to drop the current task, or send guidance.";
  }

  public static String aborted(String ant, int dropped, boolean sessionRunning, boolean resuming) {
    return "🗑️ " + bold(ant) + " aborted its current task" + (sessionRunning ? " (interrupting the session)" : "")
        + (dropped > 0 ? " and dropped " + dropped + " queued instruction" + (dropped == 1 ? "" : "s") : "")
        + (resuming ? "; resuming." : ".");
  }

  public static String urgentQueued(String ant, int session) {
    return "⚡ " + bold(ant) + " got an urgent message: interrupting session " + session + " to start on it.";
  }

  public static String interrupted(String ant, int session) {
    return "⚡ " + bold(ant) + " interrupted session " + session + "; the next one starts with the urgent message.";
  }

  public static String forceStopped(String ant, int session, long graceSeconds) {
    return "⚡ " + bold(ant) + ": session " + session + " did not stop within " + graceSeconds
        + "s of its interrupt and was killed.";
  }

  public static String pausing(String ant, boolean sessionRunning) {
    return sessionRunning
        ? "⏸️ " + bold(ant) + " will pause after the current session."
        : "⏸️ " + bold(ant) + " paused.";
  }

  public static String resuming(String ant) {
    return "▶️ " + bold(ant) + " resuming.";
  }

  public static String notPaused(String ant) {
    return "ℹ️ " + bold(ant) + " is not paused.";
  }

  public static String queued(String ant, int depth, boolean sessionRunning) {
    return "📥 " + bold(ant) + " queued your message (" + depth + " waiting)"
        + (sessionRunning ? "; it will be in the next session." : ".");
  }

  public static String undeliverable(String ant, int count, int failures, String first) {
    return "📭 " + bold(ant) + " dropped " + count + " queued message" + (count == 1 ? "" : "s")
        + " after " + failures + " failed sessions in a row carried " + (count == 1 ? "it" : "them")
        + ": \"" + summary(first) + "\". Send it again, shorter or split, if it still matters.";
  }

  public static String tooManyIssues(String ant, String repo, int number, int max) {
    return "📭 " + bold(ant) + " already has " + max + " GitHub issues waiting; " + repo + "#" + number
        + " was dropped. Handle some, or send it as a message.";
  }

  public static String cleared(String ant, int dropped) {
    return "🧹 " + bold(ant) + " discarded " + dropped + " queued message" + (dropped == 1 ? "" : "s") + ".";
  }

  public static String stopped(String ant) {
    return "⏹️ " + bold(ant) + " stopped.";
  }

  /** The ant's host stopped answering: it moves to another and recreates its workspace there. */
  public static String hostLost(String ant, String host, long afterSeconds) {
    return "🚚 " + bold(ant) + ": host " + host + " has not picked up its work for " + afterSeconds
        + "s: moving to another host (the workspace is recreated from the remote branch).";
  }

  public static String reconfigured(String ant) {
    return "🔧 " + bold(ant) + " picked up a new configuration.";
  }

  public static String confirmationRequested(String ant, int id, String tool, String summary,
      String reason, long timeoutSeconds) {
    return "⚙️ " + bold(ant) + " wants to use " + tool + " (" + reason + "), request #" + id + ":\n"
        + summary + "\nApprove with ✅ or `colony approve " + ant + " " + id + "`, deny with ❌ or `colony deny "
        + ant + " " + id + "`. Denied automatically in " + humanSeconds(timeoutSeconds) + ".";
  }

  /** A confirmation request named in a post: the ant and the request's number. */
  public record RequestRef(String ant, int id) {}

  private static final java.util.regex.Pattern REQUEST = java.util.regex.Pattern.compile(
      "\\*\\*([A-Za-z0-9_.-]+)\\*\\* wants to use .*?request #(\\d{1,9})", java.util.regex.Pattern.DOTALL);

  /** The request a {@link #confirmationRequested} post asks about; null for any other text. */
  public static RequestRef requestIn(String text) {
    if (text == null || !text.startsWith("⚙️ ")) {
      return null;
    }
    java.util.regex.Matcher m = REQUEST.matcher(text);
    return m.find() ? new RequestRef(m.group(1), Integer.parseInt(m.group(2))) : null;
  }

  public static String decided(String ant, int id, boolean approved, String by) {
    return (approved ? "✅ " : "❌ ") + bold(ant) + ": request #" + id + (approved ? " approved" : " denied")
        + " by " + by + ".";
  }

  public static String confirmationTimedOut(String ant, int id) {
    return "⌛ " + bold(ant) + ": nobody answered request #" + id + " in time; denied.";
  }

  public static String confirmationEnded(String ant, int id) {
    return "⌛ " + bold(ant) + ": request #" + id + " denied: its session ended before anyone answered.";
  }

  public static String nothingToDecide(String ant, Integer id) {
    return "ℹ️ " + bold(ant) + (id == null ? " has no request waiting for a decision."
        : " has no request #" + id + " waiting for a decision.");
  }

  static String humanSeconds(long s) {
    if (s % 3600 == 0 && s > 0) {
      return s / 3600 + "h";
    }
    if (s % 60 == 0 && s > 0) {
      return s / 60 + "m";
    }
    return s + "s";
  }

  /**
   * True for the posts that need a human to act: a confirmation waiting, or a billing, auth or
   * budget pause. Chat sinks mention the operators on these.
   */
  public static boolean needsHuman(String text) {
    if (text == null) {
      return false;
    }
    return text.startsWith("💳 ") || text.startsWith("🔐 ") || text.startsWith("💰 ") || text.startsWith("🛑 ")
        || (text.startsWith("⚙️ ") && text.contains(" wants to use "));
  }

  /** Message text for an outcome that pauses the ant. */
  public static String paused(String ant, Outcome outcome) {
    return paused(ant, outcome, null);
  }

  /** The line an ant paused by {@code outcome} says, with the session's {@code detail} where it helps. */
  public static String paused(String ant, Outcome outcome, String detail) {
    return switch (outcome) {
      case SANDBOX -> sandbox(ant, detail);
      case BILLING -> billing(ant);
      case AUTH -> auth(ant);
      case BUDGET -> budget(ant);
      default -> throw new IllegalArgumentException(outcome + " does not pause");
    };
  }

  static String orUnknown(String detail) {
    String d = trim(detail);
    return d.isEmpty() ? "unknown error" : d;
  }

  /** One line, bounded, with a visible marker when cut. */
  public static String trim(String detail) {
    if (detail == null) {
      return "";
    }
    String d = dev.colony.text.SafeText.clean(detail).strip().replaceAll("\\s*\\R\\s*", " ");
    while (d.endsWith(".")) {
      d = d.substring(0, d.length() - 1);
    }
    return d.length() <= DETAIL_LIMIT ? d : dev.colony.text.SafeText.cut(d, DETAIL_LIMIT) + "… [truncated]";
  }

  /** A post shortened to one line for the Web UI's activity summary. */
  public static String summary(String text) {
    if (text == null) {
      return "";
    }
    String line = text.replace("**", "").strip().replaceAll("\\s*\\R\\s*", " ");
    return line.length() <= 80 ? line : dev.colony.text.SafeText.cut(line, 79) + "…";
  }
}
