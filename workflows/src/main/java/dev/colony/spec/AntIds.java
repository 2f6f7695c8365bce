package dev.colony.spec;

/** Naming of Temporal ids, shared by the CLI, the worker and the workflows. */
public final class AntIds {
  /** The prefix of a colony's own task queue (see {@link #taskQueue}). */
  public static final String TASK_QUEUE_PREFIX = "colony-";
  public static final String WORKFLOW_TYPE = "AntWorkflow";
  private static final String PREFIX = "ant/";

  private AntIds() {}

  /**
   * The task queue a colony's workflows run on unless told otherwise: one per colony, so that a
   * worker started for one colony never runs another colony's ants (they once shared 'colony').
   */
  public static String taskQueue(String colony) {
    return TASK_QUEUE_PREFIX + colony;
  }

  public static String workflowId(String colony, String ant) {
    return PREFIX + colony + "/" + ant;
  }

  /** Returns {colony, ant} for an ant workflow id, or null when the id is not one. */
  public static String[] parse(String workflowId) {
    if (workflowId == null || !workflowId.startsWith(PREFIX)) {
      return null;
    }
    String rest = workflowId.substring(PREFIX.length());
    int slash = rest.indexOf('/');
    if (slash <= 0 || slash == rest.length() - 1) {
      return null;
    }
    return new String[] {rest.substring(0, slash), rest.substring(slash + 1)};
  }
}
