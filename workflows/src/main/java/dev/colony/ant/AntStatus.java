package dev.colony.ant;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.colony.autonomy.PendingConfirmation;
import java.util.List;

/**
 * The {@code status} query's answer.
 *
 * @param pauseReason {@code operator}, {@code billing}, {@code auth} or {@code budget}; null when
 *     not paused
 * @param nextWakeTime ISO-8601 instant of the pending timer (backoff, rate limit, sleep, cron);
 *     null when none
 * @param confirmations dangerous tool calls waiting for a human
 * @param wakesOn what wakes this ant besides a human: the schedule, the GitHub repositories and
 *     labels it watches; "continuous" for an ant that runs on its own
 * @param pendingIssues matching GitHub issues waiting for a session
 * @param session the session the state concerns (running, interrupting), else the last one begun
 * @param stateReason why the ant waits or pauses ({@code next tick}, {@code backoff}, {@code budget}, ...)
 * @param totalErrors failed sessions counted against {@code max_total_errors}
 * @param budget spend against the ant's caps, in words; null when it has no cap and no cost
 * @param overseer the overseer's evaluations, whispers and ladder, in words; null without one
 * @param host the host holding the ant's workspace; null before its first session
 * @param sandbox the walls around its sessions in words: {@code on}, {@code on, network open} or
 *     {@code off} (its file says sandbox: off: sessions run with the worker's powers)
 */
public record AntStatus(
    String colony,
    String ant,
    Lifecycle state,
    boolean paused,
    String pauseReason,
    int queueDepth,
    int sessions,
    int consecutiveErrors,
    String nextWakeTime,
    String lastOutcome,
    String lastDetail,
    String engine,
    List<PendingConfirmation> confirmations,
    String wakesOn,
    int pendingIssues,
    int session,
    String stateReason,
    int totalErrors,
    String budget,
    @JsonProperty("supervisor") @JsonAlias("overseer") String overseer,
    String host,
    String taskId,
    String taskTitle,
    String sandbox) {

  /** Without the sandbox (what an ant answered before sessions had walls). */
  public AntStatus(String colony, String ant, Lifecycle state, boolean paused, String pauseReason, int queueDepth,
      int sessions, int consecutiveErrors, String nextWakeTime, String lastOutcome, String lastDetail, String engine,
      List<PendingConfirmation> confirmations, String wakesOn, int pendingIssues, int session, String stateReason,
      int totalErrors, String budget, String overseer, String host, String taskId, String taskTitle) {
    this(colony, ant, state, paused, pauseReason, queueDepth, sessions, consecutiveErrors, nextWakeTime, lastOutcome,
        lastDetail, engine, confirmations, wakesOn, pendingIssues, session, stateReason, totalErrors, budget, overseer,
        host, taskId, taskTitle, null);
  }

  /** Without the task (what an ant answered before the task board). */
  public AntStatus(String colony, String ant, Lifecycle state, boolean paused, String pauseReason, int queueDepth,
      int sessions, int consecutiveErrors, String nextWakeTime, String lastOutcome, String lastDetail, String engine,
      List<PendingConfirmation> confirmations, String wakesOn, int pendingIssues, int session, String stateReason,
      int totalErrors, String budget, String overseer, String host) {
    this(colony, ant, state, paused, pauseReason, queueDepth, sessions, consecutiveErrors, nextWakeTime, lastOutcome,
        lastDetail, engine, confirmations, wakesOn, pendingIssues, session, stateReason, totalErrors, budget, overseer,
        host, null, null);
  }

  public AntStatus {
    confirmations = confirmations == null ? List.of() : List.copyOf(confirmations);
  }

  public AntStatus(String colony, String ant, Lifecycle state, boolean paused, String pauseReason, int queueDepth,
      int sessions, int consecutiveErrors, String nextWakeTime, String lastOutcome, String lastDetail, String engine,
      List<PendingConfirmation> confirmations) {
    this(colony, ant, state, paused, pauseReason, queueDepth, sessions, consecutiveErrors, nextWakeTime, lastOutcome,
        lastDetail, engine, confirmations, null, 0, 0, null, 0, null, null, null);
  }
}
