package dev.colony.ant;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * The state an ant carries from one workflow run to the next across continue-as-new. Nothing
 * an operator relies on may be missing here: queued messages, counters, pause state, a pending
 * wait, the statistics, the mailbox (urgent messages and the ids already received) and the
 * budget spend all survive, and the host that holds the ant's workspace; the notices pushed for
 * open needs; how many queued instructions still go to sessions one at a time; what the console's
 * card shows across runs (the cost ledger per day, the last sessions, since when the ant is in its
 * state, the card's revision, the last error); the task it holds from the board and its claim
 * sequence (a claim's token must never repeat). Fields added later read as empty from older histories.
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
    int deliverAlone,
    List<dev.colony.visibility.AntCard.DayCost> ledger,
    List<dev.colony.visibility.AntCard.SessionRecord> recent,
    String stateShown,
    Long stateSinceMillis,
    long cardRevision,
    String lastError,
    Long lastErrorMillis,
    dev.colony.task.TaskBrief task,
    long taskClaims,
    boolean tasksWaiting,
    String claimTaskId,
    String claimToken,
    MergeSlot.Memory merge) {

  public AntMemory {
    queue = queue == null ? List.of() : List.copyOf(queue);
    urgentQueue = urgentQueue == null ? List.of() : List.copyOf(urgentQueue);
    mailIds = mailIds == null ? List.of() : List.copyOf(mailIds);
    handledIssues = handledIssues == null ? List.of() : List.copyOf(handledIssues);
    pendingIssues = pendingIssues == null ? List.of() : List.copyOf(pendingIssues);
    sessionsByOutcome = dev.colony.determinism.SortedCopies.of(sessionsByOutcome);
    notices = notices == null ? List.of() : List.copyOf(notices);
    ledger = ledger == null ? List.of() : List.copyOf(ledger);
    recent = recent == null ? List.of() : List.copyOf(recent);
  }

  /** A builder: every field by name; those not set are empty (null, zero, false). */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from this one. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.sessions = sessions;
    b.consecutiveErrors = consecutiveErrors;
    b.paused = paused;
    b.pauseReason = pauseReason;
    b.queue = queue;
    b.postSequence = postSequence;
    b.announced = announced;
    b.wakeAtMillis = wakeAtMillis;
    b.waitKind = waitKind;
    b.scheduledRunDue = scheduledRunDue;
    b.lastOutcome = lastOutcome;
    b.lastDetail = lastDetail;
    b.startedAtMillis = startedAtMillis;
    b.sessionsByOutcome = sessionsByOutcome;
    b.turns = turns;
    b.costUsd = costUsd;
    b.costReported = costReported;
    b.inputTokens = inputTokens;
    b.outputTokens = outputTokens;
    b.deliveryFailures = deliveryFailures;
    b.handledIssues = handledIssues;
    b.pendingIssues = pendingIssues;
    b.totalErrors = totalErrors;
    b.urgentQueue = urgentQueue;
    b.mailIds = mailIds;
    b.spend = spend;
    b.budgetResumeAtMillis = budgetResumeAtMillis;
    b.lastConversation = lastConversation;
    b.overseer = overseer;
    b.host = host;
    b.pausedSinceMillis = pausedSinceMillis;
    b.notices = notices;
    b.deliverAlone = deliverAlone;
    b.ledger = ledger;
    b.recent = recent;
    b.stateShown = stateShown;
    b.stateSinceMillis = stateSinceMillis;
    b.cardRevision = cardRevision;
    b.lastError = lastError;
    b.lastErrorMillis = lastErrorMillis;
    b.task = task;
    b.taskClaims = taskClaims;
    b.tasksWaiting = tasksWaiting;
    b.claimTaskId = claimTaskId;
    b.claimToken = claimToken;
    b.merge = merge;
    return b;
  }

  /** Builds an {@link AntMemory} by field name; the record and its JSON shape stay as they are. */
  public static final class Builder {
    private MergeSlot.Memory merge;
    private int sessions;
    private int consecutiveErrors;
    private boolean paused;
    private String pauseReason;
    private List<String> queue;
    private long postSequence;
    private boolean announced;
    private Long wakeAtMillis;
    private WaitKind waitKind;
    private boolean scheduledRunDue;
    private String lastOutcome;
    private String lastDetail;
    private long startedAtMillis;
    private Map<String, Integer> sessionsByOutcome;
    private long turns;
    private double costUsd;
    private boolean costReported;
    private long inputTokens;
    private long outputTokens;
    private int deliveryFailures;
    private List<String> handledIssues;
    private List<dev.colony.trigger.IssueEvent> pendingIssues;
    private int totalErrors;
    private List<String> urgentQueue;
    private List<String> mailIds;
    private dev.colony.budget.Spend spend;
    private Long budgetResumeAtMillis;
    private String lastConversation;
    private dev.colony.overseer.OverseerMemory overseer;
    private String host;
    private Long pausedSinceMillis;
    private List<NoticeState> notices;
    private int deliverAlone;
    private List<dev.colony.visibility.AntCard.DayCost> ledger;
    private List<dev.colony.visibility.AntCard.SessionRecord> recent;
    private String stateShown;
    private Long stateSinceMillis;
    private long cardRevision;
    private String lastError;
    private Long lastErrorMillis;
    private dev.colony.task.TaskBrief task;
    private long taskClaims;
    private boolean tasksWaiting;
    private String claimTaskId;
    private String claimToken;

    private Builder() {}

    public Builder sessions(int sessions) {
      this.sessions = sessions;
      return this;
    }

    public Builder consecutiveErrors(int consecutiveErrors) {
      this.consecutiveErrors = consecutiveErrors;
      return this;
    }

    public Builder paused(boolean paused) {
      this.paused = paused;
      return this;
    }

    public Builder pauseReason(String pauseReason) {
      this.pauseReason = pauseReason;
      return this;
    }

    public Builder queue(List<String> queue) {
      this.queue = queue;
      return this;
    }

    public Builder postSequence(long postSequence) {
      this.postSequence = postSequence;
      return this;
    }

    public Builder announced(boolean announced) {
      this.announced = announced;
      return this;
    }

    public Builder wakeAtMillis(Long wakeAtMillis) {
      this.wakeAtMillis = wakeAtMillis;
      return this;
    }

    public Builder waitKind(WaitKind waitKind) {
      this.waitKind = waitKind;
      return this;
    }

    public Builder scheduledRunDue(boolean scheduledRunDue) {
      this.scheduledRunDue = scheduledRunDue;
      return this;
    }

    public Builder lastOutcome(String lastOutcome) {
      this.lastOutcome = lastOutcome;
      return this;
    }

    public Builder lastDetail(String lastDetail) {
      this.lastDetail = lastDetail;
      return this;
    }

    public Builder startedAtMillis(long startedAtMillis) {
      this.startedAtMillis = startedAtMillis;
      return this;
    }

    public Builder sessionsByOutcome(Map<String, Integer> sessionsByOutcome) {
      this.sessionsByOutcome = sessionsByOutcome;
      return this;
    }

    public Builder turns(long turns) {
      this.turns = turns;
      return this;
    }

    public Builder costUsd(double costUsd) {
      this.costUsd = costUsd;
      return this;
    }

    public Builder costReported(boolean costReported) {
      this.costReported = costReported;
      return this;
    }

    public Builder inputTokens(long inputTokens) {
      this.inputTokens = inputTokens;
      return this;
    }

    public Builder outputTokens(long outputTokens) {
      this.outputTokens = outputTokens;
      return this;
    }

    public Builder deliveryFailures(int deliveryFailures) {
      this.deliveryFailures = deliveryFailures;
      return this;
    }

    public Builder handledIssues(List<String> handledIssues) {
      this.handledIssues = handledIssues;
      return this;
    }

    public Builder pendingIssues(List<dev.colony.trigger.IssueEvent> pendingIssues) {
      this.pendingIssues = pendingIssues;
      return this;
    }

    public Builder totalErrors(int totalErrors) {
      this.totalErrors = totalErrors;
      return this;
    }

    public Builder urgentQueue(List<String> urgentQueue) {
      this.urgentQueue = urgentQueue;
      return this;
    }

    public Builder mailIds(List<String> mailIds) {
      this.mailIds = mailIds;
      return this;
    }

    public Builder spend(dev.colony.budget.Spend spend) {
      this.spend = spend;
      return this;
    }

    public Builder budgetResumeAtMillis(Long budgetResumeAtMillis) {
      this.budgetResumeAtMillis = budgetResumeAtMillis;
      return this;
    }

    public Builder lastConversation(String lastConversation) {
      this.lastConversation = lastConversation;
      return this;
    }

    public Builder overseer(dev.colony.overseer.OverseerMemory overseer) {
      this.overseer = overseer;
      return this;
    }

    public Builder host(String host) {
      this.host = host;
      return this;
    }

    public Builder pausedSinceMillis(Long pausedSinceMillis) {
      this.pausedSinceMillis = pausedSinceMillis;
      return this;
    }

    public Builder notices(List<NoticeState> notices) {
      this.notices = notices;
      return this;
    }

    public Builder deliverAlone(int deliverAlone) {
      this.deliverAlone = deliverAlone;
      return this;
    }

    public Builder ledger(List<dev.colony.visibility.AntCard.DayCost> ledger) {
      this.ledger = ledger;
      return this;
    }

    public Builder recent(List<dev.colony.visibility.AntCard.SessionRecord> recent) {
      this.recent = recent;
      return this;
    }

    public Builder stateShown(String stateShown) {
      this.stateShown = stateShown;
      return this;
    }

    public Builder stateSinceMillis(Long stateSinceMillis) {
      this.stateSinceMillis = stateSinceMillis;
      return this;
    }

    public Builder cardRevision(long cardRevision) {
      this.cardRevision = cardRevision;
      return this;
    }

    public Builder lastError(String lastError) {
      this.lastError = lastError;
      return this;
    }

    public Builder lastErrorMillis(Long lastErrorMillis) {
      this.lastErrorMillis = lastErrorMillis;
      return this;
    }

    /** The task the ant holds (see {@link TaskSlot}); null when none. */
    public Builder task(dev.colony.task.TaskBrief task) {
      this.task = task;
      return this;
    }

    /** Claims made so far: the next claim's token is {@code <workflow id>#<taskClaims + 1>}. */
    public Builder taskClaims(long taskClaims) {
      this.taskClaims = taskClaims;
      return this;
    }

    /** A {@code tasksWaiting} signal not yet looked at. */
    public Builder tasksWaiting(boolean tasksWaiting) {
      this.tasksWaiting = tasksWaiting;
      return this;
    }

    /** The last claim whose answer never came (its activity gave up), to repeat with the same token. */
    public Builder unansweredClaim(String taskId, String token) {
      this.claimTaskId = taskId;
      this.claimToken = token;
      return this;
    }

    /** The ant's side of its repository's merge queue: a branch to move, a path claim, needs of a human. */
    public Builder merge(MergeSlot.Memory merge) {
      this.merge = merge;
      return this;
    }

    public AntMemory build() {
      return new AntMemory(sessions, consecutiveErrors, paused, pauseReason, queue, postSequence, announced, wakeAtMillis, waitKind, scheduledRunDue, lastOutcome, lastDetail, startedAtMillis, sessionsByOutcome, turns, costUsd, costReported, inputTokens, outputTokens, deliveryFailures, handledIssues, pendingIssues, totalErrors, urgentQueue, mailIds, spend, budgetResumeAtMillis, lastConversation, overseer, host, pausedSinceMillis, notices, deliverAlone, ledger, recent, stateShown, stateSinceMillis, cardRevision, lastError, lastErrorMillis, task, taskClaims, tasksWaiting, claimTaskId, claimToken, merge);
    }
  }
}
