package dev.colony.task;

/** Bounds on what a task holds, so one paste cannot bloat a history or a memo. */
public final class TaskLimits {
  private TaskLimits() {}

  public static final int TITLE = 200;
  public static final int BODY = 20_000;
  public static final int COMMENT = 4_000;
  public static final int LABELS = 10;
  public static final int LABEL = 32;
  /** Comments kept (the oldest go first; the Web UI's history keeps them all). */
  public static final int COMMENTS = 50;
  public static final int SESSIONS = 20;
  public static final int LOG = 30;
}
