package dev.colony.task;

import dev.colony.visibility.AntSearchAttributes;
import io.temporal.common.SearchAttributeKey;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * The search attributes of a task's workflow: the board is a visibility query, read with no
 * worker ({@code WorkflowType = 'TaskWorkflow' AND ColonyName = 'c' AND TaskState = 'todo'}).
 * Tasks share {@code ColonyName} with ants; {@code TaskTags} holds, as {@code prefix:value}:
 * {@code assignee:alpha|pool:docs|@alice|-}, {@code label:docs}, who may take it
 * ({@code take:ant:alpha}, {@code take:pool:docs}, {@code take:any}) and, In Progress,
 * {@code worker:alpha}. One keyword list keeps within a SQL visibility store's three.
 */
public final class TaskSearchAttributes {
  private TaskSearchAttributes() {}

  public static final SearchAttributeKey<String> COLONY = AntSearchAttributes.COLONY;
  /** {@link TaskState#word()}: {@code backlog}, {@code todo}, {@code in_progress}, ... */
  public static final SearchAttributeKey<String> STATE = SearchAttributeKey.forKeyword("TaskState");
  /** {@code high}, {@code normal}, {@code low}. */
  public static final SearchAttributeKey<String> PRIORITY = SearchAttributeKey.forKeyword("TaskPriority");
  public static final SearchAttributeKey<List<String>> TAGS = SearchAttributeKey.forKeywordList("TaskTags");
  /** When the task last changed: the console finds what changed since X with {@code TaskUpdatedAt >= X}. */
  public static final SearchAttributeKey<OffsetDateTime> UPDATED_AT = SearchAttributeKey.forOffsetDateTime("TaskUpdatedAt");

  /** The keys tasks add (ColonyName is the ants'). */
  public static final List<SearchAttributeKey<?>> ALL = List.of(STATE, PRIORITY, TAGS, UPDATED_AT);

  public static String workerTag(String ant) {
    return "worker:" + ant;
  }
}
