package dev.colony.ant;

import dev.colony.compat.Compatibility.Change;
import dev.colony.notify.Notice;
import dev.colony.notify.NotifyActivities;
import dev.colony.notify.NotifyResult;
import dev.colony.spec.NotifySpec;
import io.temporal.activity.ActivityOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;

/**
 * Tells the ant's humans on their phones when it needs one ({@code integrations.notify}): a
 * confirmation waiting, a billing, auth or budget pause, a parked crash loop or a fatal error, an
 * escalation. Each need gets one notice when it starts (not one per retry or replay: it is an
 * activity of this workflow), a reminder after {@code remind_after} while nobody has answered, and,
 * for targets in their quiet hours, the notice when those end (urgent ones are pushed at once). It
 * runs on threads of its own: a notice that cannot be delivered never holds up the ant.
 */
final class Notifier {
  private static final Logger log = Workflow.getLogger(Notifier.class);
  private static final int MAX_TEXT = 300;
  private static final String REQUEST = "request-";
  private static final String PAUSE = "pause-";
  /** A task of the ant's that went to Blocked: one notice, no reminders (the board holds it from then on). */
  private static final String TASK = "task-";
  /** Work the merge queue gave to a human (after its reworks): one notice, no reminders (the queue holds it). */
  private static final String MERGE = "merge-";

  private final AntState ant;
  /** Needs with a thread following them. */
  private final Set<String> followed = new TreeSet<>();
  private boolean started;
  private int inFlight;

  /** One need of a human, as the ant's state shows it. */
  record Need(String id, String kind, boolean urgent, String text, String answer) {}

  Notifier(AntState ant) {
    this.ant = ant;
  }

  /** Starts following needs when the spec asks for notices (and the run is of code that has them). */
  void startIfConfigured() {
    if (started || ant.spec().notices() == null) {
      return;
    }
    Change.NOTIFY_HUMANS.require();
    started = true;
    Async.procedure(this::watch);
  }

  /** No notice is being delivered (a run continues as new only then, or the notice is lost). */
  boolean idle() {
    return inFlight == 0;
  }

  private void watch() {
    while (true) {
      Workflow.await(() -> !unfollowed().isEmpty());
      for (String id : unfollowed()) {
        Need n = describe(id);
        followed.add(id);
        Async.procedure(() -> follow(n));
      }
    }
  }

  private List<String> unfollowed() {
    List<String> out = new ArrayList<>();
    for (String id : openIds()) {
      if (!followed.contains(id)) {
        out.add(id);
      }
    }
    return out;
  }

  /**
   * What the ant needs a human for right now, by id only: the workflow evaluates this after every
   * event, so it builds no text. {@link #describe} says the rest, once per need.
   */
  List<String> openIds() {
    return openIds(ant);
  }

  /** {@link #openIds()} of any ant's state (its memory keeps the notices of open needs only). */
  static List<String> openIds(AntState ant) {
    List<String> ids = new ArrayList<>();
    for (int id : ant.confirmations.openIds()) {
      ids.add(REQUEST + id);
    }
    String reason = ant.pause.reason();
    if (reason != null && ant.pause.sinceMillis() != null && needsHuman(reason)) {
      ids.add(PAUSE + reason + "-" + ant.pause.sinceMillis());
    }
    ids.addAll(ant.task.blockedNeedIds());
    ids.addAll(ant.merge.needIds());
    // A told-once notice held back by quiet hours stays open until it is sent (its slot forgot it).
    for (String id : ant.notices.keySet()) {
      if (once(id) && !ids.contains(id)) {
        ids.add(id);
      }
    }
    return ids;
  }

  /** The need with this id: its kind, urgency, why and how to answer. */
  Need describe(String id) {
    String name = ant.spec().name();
    String ref = ant.spec().colony() + "/" + name;
    if (id.startsWith(REQUEST)) {
      int n = Integer.parseInt(id.substring(REQUEST.length()));
      var e = ant.confirmations.target(n);
      var r = e == null ? null : e.request();
      String what = r == null ? "request #" + n : r.tool() + " (" + r.reason() + "), request #" + n + ": " + r.summary();
      return new Need(id, "confirmation", false, clip(name + " wants to use " + what),
          "colony approve " + ref + " " + n + "  or  colony deny " + ref + " " + n
              + " (or ✅ / ❌ on the request in the chat)");
    }
    if (id.startsWith(TASK)) {
      String task = id.substring(TASK.length(), id.lastIndexOf('-'));
      String text = ant.task.blockedText(id);
      return new Need(id, "task_blocked", false, clip(text == null ? name + ": task " + task + " is Blocked" : text),
          "colony task show " + task + ", then colony task requeue " + task + " --comment '...' (or move it)");
    }
    if (id.startsWith(MERGE)) {
      String text = ant.merge.needText(id);
      return new Need(id, "merge", false, clip(text == null ? name + ": its work needs a human to land" : text),
          "colony merge status, then colony merge retry ITEM (after fixing it) or colony merge cancel ITEM");
    }
    String reason = id.substring(PAUSE.length(), id.lastIndexOf('-'));
    boolean urgent = reason.equals(AntState.PARKED_REASON) || reason.equals(AntState.FATAL_REASON)
        || reason.equals("budget");
    String why = switch (reason) {
      case "billing" -> name + " is paused: the agent's billing or quota needs attention.";
      case "auth" -> name + " is paused: the agent's credentials were refused.";
      case "budget" -> name + " is paused: it reached its budget cap.";
      case AntState.ESCALATION_REASON -> name + " is paused: its overseer escalated to a human.";
      case AntState.FATAL_REASON -> name + " stopped on an error in its own workflow code.";
      default -> name + " is parked after repeated errors" + (ant.stats.lastDetail() == null ? "." : ": " + ant.stats.lastDetail());
    };
    String answer = reason.equals(AntState.ESCALATION_REASON)
        ? "colony abort " + ref + " (drop the task)  or  colony resume " + ref + " (let it go on)"
        : "fix the cause, then colony resume " + ref + " (or /resume in its channel); colony status " + ref
            + " shows why";
    return new Need(id, reason, urgent, clip(why), answer);
  }

  /**
   * The pauses a human must end: those that need a human in visibility ({@code AntNeedsHuman}),
   * and an escalation or a fatal error, which the operator answers too.
   */
  static boolean needsHuman(String pauseReason) {
    return AntVisibility.isBlockingReason(pauseReason) || AntState.ESCALATION_REASON.equals(pauseReason)
        || AntState.FATAL_REASON.equals(pauseReason);
  }

  private boolean stillOpen(Need need) {
    return openIds().contains(need.id());
  }

  /**
   * One need: the notice, reminders while nobody answers, and the held-back notice when quiet
   * hours end. Where it stands is kept in the ant's state ({@link NoticeState}), so a run that
   * continued as new picks the need up where the last one left it instead of pushing it again.
   */
  private void follow(Need need) {
    NotifySpec spec = ant.spec().notices();
    long remindAfter = spec.remindAfterSeconds() * 1000;
    boolean once = once(need.id());
    NoticeState s = ant.notices.get(need.id());
    if (s == null) {
      long askedAt = Workflow.currentTimeMillis();
      NotifyResult r = send(need, 0, askedAt, 0);
      if (once) {
        if (need.id().startsWith(TASK)) {
          ant.task.noticeSent(need.id()); // told once: the task waits on the board, not in the ant
        } else {
          ant.merge.noticeSent(need.id()); // told once: the item waits in the queue, not in the ant
        }
        // Held by quiet hours: the notice still goes when they end (its state, carried across
        // continue-as-new, keeps the need open until then). Runs recorded before dropped it.
        if (heldUntil(r) <= 0
            || !Change.HELD_ONCE_NOTICES.applies()) {
          followed.remove(need.id());
          return;
        }
      }
      s = remember(new NoticeState(need.id(), 0, 0, askedAt, askedAt + remindAfter, heldUntil(r)));
    }
    while (true) {
      long due = !once && remindAfter > 0 && s.reminders() < spec.reminders() ? s.remindAtMillis() : Long.MAX_VALUE;
      long held = s.heldUntilMillis();
      boolean heldFirst = held > 0 && held < due;
      long next = heldFirst ? held : due;
      if (next == Long.MAX_VALUE) {
        break; // nothing more to send for this need
      }
      long wait = Math.max(1000, next - Workflow.currentTimeMillis());
      String summary = (heldFirst ? "notice after quiet hours · " : "reminder · ") + need.id();
      if (Timers.await(Duration.ofMillis(wait), summary, () -> !stillOpen(need))) {
        break; // answered
      }
      long now = Workflow.currentTimeMillis();
      if (heldFirst) {
        NotifyResult r = send(need, s.round(), now, s.askedAtMillis());
        s = remember(new NoticeState(need.id(), s.round(), s.reminders(), s.askedAtMillis(), s.remindAtMillis(),
            heldUntil(r)));
      } else {
        NotifyResult r = send(need, s.round() + 1, now, 0);
        s = remember(new NoticeState(need.id(), s.round() + 1, s.reminders() + 1, now, now + remindAfter,
            heldUntil(r)));
      }
    }
    if (!once) {
      Workflow.await(() -> !stillOpen(need));
    }
    ant.notices.remove(need.id());
    followed.remove(need.id());
  }

  /** A need told once (a Blocked task, work the queue gave to a human): no reminders, no answer to wait for. */
  private static boolean once(String needId) {
    return needId.startsWith(TASK) || needId.startsWith(MERGE);
  }

  private NoticeState remember(NoticeState s) {
    ant.notices.put(s.need(), s);
    return s;
  }

  private static long heldUntil(NotifyResult r) {
    return r == null ? 0 : r.heldUntilMillis();
  }

  private NotifyResult send(Need need, int round, long at, long previousAt) {
    NotifyActivities act = Workflow.newActivityStub(NotifyActivities.class,
        ActivityOptions.newBuilder(dev.colony.Activities.NOTIFY)
            .setSummary("notify · " + need.id() + (round == 0 ? "" : " · reminder " + round))
            .build());
    inFlight++;
    try {
      return act.notify(new Notice(ant.spec().colony(), ant.spec().colonyDir(), ant.spec().name(), ant.spec().workflowId(),
          need.id(), need.kind(), need.urgent(), need.text(), need.answer(), round, at, previousAt, ant.spec().notices()));
    } catch (ActivityFailure f) {
      log.warn("notice {} of {} not delivered: {}", need.id(), ant.spec().name(), Texts.rootMessage(f));
      return null;
    } finally {
      inFlight--;
    }
  }

  private static String clip(String s) {
    String one = s.replace('\n', ' ');
    return one.length() <= MAX_TEXT ? one : dev.colony.text.SafeText.cut(one, MAX_TEXT - 1) + "…";
  }
}
