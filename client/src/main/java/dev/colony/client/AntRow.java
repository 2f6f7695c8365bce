package dev.colony.client;

import dev.colony.spec.AntIds;
import dev.colony.visibility.AntCard;
import dev.colony.visibility.AntSearchAttributes;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.common.SearchAttributeKey;
import io.temporal.common.SearchAttributes;
import java.time.Instant;
import java.time.OffsetDateTime;

/**
 * One ant as Temporal visibility shows it, for every surface (the CLI's status, the console's
 * lists, the MCP tools): read from the search attributes and memo the ant keeps up to date, so listing ants never
 * needs a worker. {@link #of} is the one reading; a surface shows the fields it needs.
 *
 * @param state the lifecycle state, lower case; {@link #UNKNOWN} for an ant that has not
 *     published yet (its first workflow task has not run)
 * @param taskQueue the task queue its workflow runs on (its colony's own, unless started with --task-queue)
 * @param running whether this run of its workflow runs (a stopped ant's last run does not)
 * @param updatedMillis when its card last changed ({@code AntUpdatedAt}), 0 when unset
 */
public record AntRow(
    String colony,
    String ant,
    String workflowId,
    String state,
    boolean paused,
    String pauseReason,
    long sessions,
    long errors,
    long queue,
    Instant nextWake,
    boolean needsHuman,
    String lastOutcome,
    String engine,
    String description,
    String host,
    String taskQueue,
    boolean running,
    long updatedMillis) {

  /** The state of an ant that has not published one yet. */
  public static final String UNKNOWN = "unknown";

  /**
   * The visibility query of the ants (of {@code colony}, when not null): their workflow type and
   * colony; a surface adds {@code running()} or its own filter. Tasks share ColonyName, so the type is named.
   */
  public static VisibilityQuery ants(String colony) {
    VisibilityQuery q = VisibilityQuery.where().eq("WorkflowType", AntIds.WORKFLOW_TYPE);
    return colony == null ? q : q.eq("ColonyName", colony);
  }

  /** The row of the workflow run {@code m} (a visibility listing's or a describe's). */
  public static AntRow of(WorkflowExecutionMetadata m) {
    String id = m.getExecution().getWorkflowId();
    String[] parts = AntIds.parse(id);
    SearchAttributes a = m.getTypedSearchAttributes();
    OffsetDateTime wake = get(a, AntSearchAttributes.NEXT_WAKE);
    OffsetDateTime updated = get(a, AntSearchAttributes.UPDATED_AT);
    return new AntRow(
        or(get(a, AntSearchAttributes.COLONY), parts == null ? "?" : parts[0]),
        or(get(a, AntSearchAttributes.ANT), parts == null ? id : parts[1]),
        id,
        or(get(a, AntSearchAttributes.STATE), UNKNOWN),
        Boolean.TRUE.equals(get(a, AntSearchAttributes.PAUSED)),
        get(a, AntSearchAttributes.PAUSE_REASON),
        or(get(a, AntSearchAttributes.SESSIONS), 0L),
        or(get(a, AntSearchAttributes.ERRORS), 0L),
        or(get(a, AntSearchAttributes.QUEUE), 0L),
        wake == null ? null : wake.toInstant(),
        Boolean.TRUE.equals(get(a, AntSearchAttributes.NEEDS_HUMAN)),
        get(a, AntSearchAttributes.LAST_OUTCOME),
        memo(m, AntSearchAttributes.MEMO_ENGINE),
        memo(m, AntSearchAttributes.MEMO_DESCRIPTION),
        get(a, AntSearchAttributes.HOST),
        m.getTaskQueue(),
        m.getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING,
        updated == null ? 0 : updated.toInstant().toEpochMilli());
  }

  /** Whether the row names an ant: its workflow id is an ant's, or it published its name. */
  public boolean named() {
    return AntIds.parse(workflowId) != null || !ant.equals(workflowId);
  }

  /** The ant's memo card (what the console draws), null when it has none (older ants) or one newer than this release reads. */
  public static AntCard card(WorkflowExecutionMetadata m) {
    try {
      AntCard card = m.getMemo(AntCard.MEMO_KEY, AntCard.class, AntCard.class);
      return card == null || card.version() > AntCard.VERSION ? null : card;
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static <T> T get(SearchAttributes a, SearchAttributeKey<T> key) {
    try {
      return a.get(key);
    } catch (RuntimeException wrongType) {
      return null; // set by something else with another type: show it as absent
    }
  }

  private static String memo(WorkflowExecutionMetadata m, String key) {
    try {
      return (String) m.getMemo(key, String.class);
    } catch (RuntimeException notAString) {
      return null;
    }
  }

  private static <T> T or(T value, T otherwise) {
    return value == null ? otherwise : value;
  }
}
