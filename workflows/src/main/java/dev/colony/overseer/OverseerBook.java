package dev.colony.overseer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The overseer's state inside an ant's workflow: the rolling window of turns, when the
 * next evaluation is due, the ladder's strikes, the whispers waiting for the agent, and counters
 * for {@code status}. Deterministic and free of Temporal calls, so it is tested on its own.
 */
public final class OverseerBook {
  /** At most this many whispers wait; older ones are dropped first (an agent that never takes a turn). */
  static final int MAX_PENDING = 10;

  private final Deque<Turn> window = new ArrayDeque<>();
  private int sinceEval;
  private final List<Whisper> pending = new ArrayList<>();
  private long whisperSeq;
  private int strikes;
  private Pattern lastFlag;
  private String lastReason;
  private Pattern lastVerdict;
  private int evaluations;
  private int skipped;
  private int whispers;
  private int escalations;
  private String lastError;
  private boolean evaluating;
  private long silentSeconds;
  /** What the model calls cost so far (also counted in the ant's spend). */
  private double costUsd;
  /** Escalated and not yet answered by a human: no more evaluations (carried over). */
  private boolean escalated;
  /**
   * The session ended with turns no evaluation has read: one is due now, whatever their number.
   * Not carried over: a run continues as new only once no evaluation is due.
   */
  private boolean sessionEnded;

  public OverseerBook(OverseerMemory m) {
    if (m == null) {
      return;
    }
    window.addAll(m.window());
    sinceEval = m.sinceEval();
    pending.addAll(m.pending());
    whisperSeq = m.whisperSeq();
    strikes = m.strikes();
    lastFlag = m.lastFlag();
    lastReason = m.lastReason();
    lastVerdict = m.lastVerdict();
    evaluations = m.evaluations();
    skipped = m.skipped();
    whispers = m.whispers();
    escalations = m.escalations();
    lastError = m.lastError();
    escalated = m.escalated();
    costUsd = m.costUsd();
  }

  public OverseerMemory memory() {
    return new OverseerMemory(List.copyOf(window), sinceEval, pending, whisperSeq, strikes, lastFlag, lastReason,
        lastVerdict, evaluations, skipped, whispers, escalations, lastError, escalated, costUsd);
  }

  /**
   * Takes a report: its turns join the window (bounded, sanitised), the whispers it says were
   * delivered are forgotten, and a silence is noted as an observation.
   */
  public void accept(TurnReport report, OverseerSpec spec) {
    acknowledge(report.delivered());
    int taken = 0;
    for (Turn t : report.turns()) {
      if (t == null || taken++ >= TurnReport.MAX_TURNS) {
        continue;
      }
      window.addLast(t.bounded());
      sinceEval++;
    }
    while (window.size() > spec.windowSize()) {
      window.removeFirst();
    }
    if (report.last() && sinceEval > 0) {
      sessionEnded = true; // turns the agent took after the last evaluation are not left unread
    }
    if (report.silentSeconds() > 0 && !report.turns().isEmpty()) {
      return; // turns arrived with it: the agent is not silent after all
    }
    if (report.silentSeconds() > 0) {
      silentSeconds = report.silentSeconds();
    }
  }

  public void acknowledge(List<String> ids) {
    if (ids == null || ids.isEmpty()) {
      return;
    }
    Set<String> done = new TreeSet<>(ids);
    pending.removeIf(w -> done.contains(w.id()));
  }

  /** An LLM evaluation should start now. */
  public boolean evaluationDue(OverseerSpec spec) {
    return spec != null && !evaluating && !escalated && !window.isEmpty()
        && (sinceEval >= spec.evalInterval() || sessionEnded && sinceEval > 0);
  }

  /** A silence was reported and is not yet on the ladder. */
  public boolean silenceDue() {
    return !evaluating && !escalated && silentSeconds > 0;
  }

  /** Whether a report should wait for a verdict before it answers. */
  public boolean busy(OverseerSpec spec) {
    return evaluating || evaluationDue(spec) || silenceDue();
  }

  /** Starts an evaluation of the current window (the turns since the last one are now counted). */
  public EvaluationRequest beginEvaluation(String ant, String colonyDir, OverseerSpec spec, String task) {
    evaluating = true;
    sinceEval = 0;
    sessionEnded = false;
    return new EvaluationRequest(ant, colonyDir, spec, task, List.copyOf(window), strikes, lastFlag);
  }

  /** Takes the silence observation: a STALLING verdict that needs no model. */
  public Verdict takeSilence() {
    evaluating = true;
    long s = silentSeconds;
    silentSeconds = 0;
    return new Verdict(Pattern.STALLING, "", "no turn for " + s + "s with no tool running and no human awaited");
  }

  /**
   * The evaluation failed (rate limit, auth, a bad answer): skipped and counted; the ant goes on.
   * {@code costUsd}: what its model call cost all the same (an answer that was not a verdict).
   */
  public void skipped(String error, double costUsd) {
    spent(costUsd);
    evaluating = false;
    skipped++;
    lastError = error;
  }

  /** Applies a verdict to the ladder; a whisper (or escalation) it calls for is queued for the agent. */
  public Ladder.Step conclude(Verdict verdict, OverseerSpec spec) {
    spent(verdict.costUsd());
    evaluating = false;
    evaluations++;
    lastVerdict = verdict.pattern();
    Ladder.Step step = Ladder.next(strikes, verdict, spec.escalationThreshold());
    strikes = step.strikes();
    if (step.action() == Ladder.Action.QUIET) {
      lastFlag = null;
      lastReason = null;
      return step;
    }
    lastFlag = verdict.pattern();
    lastReason = verdict.reason();
    queue(step.kind(), step.text());
    if (step.action() == Ladder.Action.ESCALATE) {
      escalations++;
      escalated = true; // the ant pauses; nothing more to say until a human answers
      sinceEval = 0;
    } else {
      whispers++;
    }
    return step;
  }

  private void spent(double usd) {
    if (usd > 0 && Double.isFinite(usd)) {
      costUsd += usd;
    }
  }

  public double costUsd() {
    return costUsd;
  }

  private void queue(String kind, String text) {
    whisperSeq++;
    pending.add(new Whisper("w" + whisperSeq, kind, text));
    while (pending.size() > MAX_PENDING) {
      pending.remove(0);
    }
  }

  /** A human answered (resume, a message): the ladder starts again. */
  public void resetLadder() {
    escalated = false;
    sinceEval = 0;
    sessionEnded = false;
    strikes = 0;
    lastFlag = null;
    lastReason = null;
  }

  /** {@code abort}: the task is gone, so are its turns and the whispers about it. */
  public void forgetTask() {
    resetLadder();
    window.clear();
    sinceEval = 0;
    pending.clear();
    silentSeconds = 0;
  }

  public List<Whisper> pending() {
    return List.copyOf(pending);
  }

  /** Whispers handed to a new session in its prompt: delivered. */
  public List<Whisper> takePending() {
    List<Whisper> out = List.copyOf(pending);
    pending.clear();
    return out;
  }

  public boolean evaluating() {
    return evaluating;
  }

  public int strikes() {
    return strikes;
  }

  public String lastReason() {
    return lastReason;
  }

  public Pattern lastFlag() {
    return lastFlag;
  }

  public int evaluations() {
    return evaluations;
  }

  public int skippedCount() {
    return skipped;
  }

  public boolean escalated() {
    return escalated;
  }

  public int escalations() {
    return escalations;
  }

  /** One line for {@code status}. */
  public String summary(OverseerSpec spec) {
    StringBuilder sb = new StringBuilder(spec.model()).append(": ")
        .append(evaluations).append(evaluations == 1 ? " evaluation" : " evaluations");
    if (lastVerdict != null) {
      sb.append(" (last ").append(lastVerdict).append(')');
    }
    if (costUsd > 0) {
      // Counted in the ant's spend and budget (status' budget line, stats' cost).
      sb.append(String.format(java.util.Locale.ROOT, costUsd < 0.01 ? ", $%.4f spent" : ", $%.2f spent", costUsd));
    }
    if (skipped > 0) {
      sb.append(", ").append(skipped).append(" skipped");
      if (lastError != null) {
        sb.append(" (").append(lastError.length() > 120 ? dev.colony.text.SafeText.cut(lastError, 120) + "…" : lastError).append(')');
      }
    }
    sb.append(", ").append(whispers).append(whispers == 1 ? " whisper" : " whispers")
        .append(", ").append(escalations).append(escalations == 1 ? " escalation" : " escalations")
        .append("; ");
    if (escalated) {
      sb.append("escalated (").append(lastFlag).append("), awaiting a human");
    } else {
      sb.append("ladder ").append(strikes).append('/').append(spec.escalationThreshold());
      if (lastFlag != null) {
        sb.append(" (").append(lastFlag).append(')');
      }
    }
    if (evaluating) {
      sb.append("; evaluating");
    }
    return sb.toString();
  }
}
