package dev.colony.ant;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * The state an ant carries from one workflow run to the next across continue-as-new. Nothing
 * an operator relies on may be missing here: queued messages, counters, pause state, a pending
 * wait, the statistics, the mailbox (urgent messages and the ids already received) and the
 * budget spend all survive, and the host that holds the ant's workspace; the notices pushed for
 * open needs; how many queued instructions still go to sessions one at a time. Fields added later read as empty from older histories.
 */
public record AntMemory(
    int sessions,
    int consecutiveErrors,
    boolean paused,
    String pauseReason,
    List<String> queue,
    long postSequence,
    boolean announced,
    Long wakeAtMillis,
    WaitKind waitKind,
    boolean scheduledRunDue,
    String lastOutcome,
    String lastDetail,
    long startedAtMillis,
    Map<String, Integer> sessionsByOutcome,
    long turns,
    double costUsd,
    boolean costReported,
    long inputTokens,
    long outputTokens,
    int deliveryFailures,
    List<String> handledIssues,
    List<dev.colony.trigger.IssueEvent> pendingIssues,
    int totalErrors,
    List<String> urgentQueue,
    List<String> mailIds,
    dev.colony.budget.Spend spend,
    Long budgetResumeAtMillis,
    String lastConversation,
    @JsonProperty("oversight") dev.colony.overseer.OverseerMemory overseer,
    String host,
    Long pausedSinceMillis,
    List<NoticeState> notices,
    int deliverAlone) {

  public AntMemory {
    queue = queue == null ? List.of() : List.copyOf(queue);
    urgentQueue = urgentQueue == null ? List.of() : List.copyOf(urgentQueue);
    mailIds = mailIds == null ? List.of() : List.copyOf(mailIds);
    handledIssues = handledIssues == null ? List.of() : List.copyOf(handledIssues);
    pendingIssues = pendingIssues == null ? List.of() : List.copyOf(pendingIssues);
    sessionsByOutcome = dev.colony.determinism.SortedCopies.of(sessionsByOutcome);
    notices = notices == null ? List.of() : List.copyOf(notices);
  }

  /** The memory as it was before the fields after {@code pausedSinceMillis} (those read as empty). */
  public AntMemory(int sessions, int consecutiveErrors, boolean paused, String pauseReason, List<String> queue,
      long postSequence, boolean announced, Long wakeAtMillis, WaitKind waitKind, boolean scheduledRunDue,
      String lastOutcome, String lastDetail, long startedAtMillis, Map<String, Integer> sessionsByOutcome, long turns,
      double costUsd, boolean costReported, long inputTokens, long outputTokens, int deliveryFailures,
      List<String> handledIssues, List<dev.colony.trigger.IssueEvent> pendingIssues, int totalErrors,
      List<String> urgentQueue, List<String> mailIds, dev.colony.budget.Spend spend, Long budgetResumeAtMillis,
      String lastConversation, dev.colony.overseer.OverseerMemory overseer, String host, Long pausedSinceMillis) {
    this(sessions, consecutiveErrors, paused, pauseReason, queue, postSequence, announced, wakeAtMillis, waitKind,
        scheduledRunDue, lastOutcome, lastDetail, startedAtMillis, sessionsByOutcome, turns, costUsd, costReported,
        inputTokens, outputTokens, deliveryFailures, handledIssues, pendingIssues, totalErrors, urgentQueue, mailIds,
        spend, budgetResumeAtMillis, lastConversation, overseer, host, pausedSinceMillis, null, 0);
  }
}
