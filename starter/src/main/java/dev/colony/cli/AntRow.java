package dev.colony.cli;

import dev.colony.spec.AntIds;
import dev.colony.visibility.AntSearchAttributes;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.common.SearchAttributeKey;
import io.temporal.common.SearchAttributes;
import java.time.Instant;
import java.time.OffsetDateTime;

/**
 * One ant as Temporal visibility shows it: read from the search attributes and memo the ant
 * keeps up to date, so listing ants never needs a worker.
 *
 * @param state the lifecycle state, lower case; {@code unknown} for an ant that has not
 *     published yet (its first workflow task has not run)
 * @param taskQueue the task queue its workflow runs on (its colony's own, unless started with --task-queue)
 */
record AntRow(
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
    String taskQueue) {

  static AntRow of(WorkflowExecutionMetadata m) {
    String id = m.getExecution().getWorkflowId();
    String[] parts = AntIds.parse(id);
    SearchAttributes a = m.getTypedSearchAttributes();
    OffsetDateTime wake = get(a, AntSearchAttributes.NEXT_WAKE);
    return new AntRow(
        or(get(a, AntSearchAttributes.COLONY), parts == null ? "?" : parts[0]),
        or(get(a, AntSearchAttributes.ANT), parts == null ? id : parts[1]),
        id,
        or(get(a, AntSearchAttributes.STATE), "unknown"),
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
        m.getTaskQueue());
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
