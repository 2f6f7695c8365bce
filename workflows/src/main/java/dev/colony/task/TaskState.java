package dev.colony.task;

import java.util.Locale;

/**
 * A task's column on the board. Ants ignore {@link #BACKLOG}; they take {@link #TODO}, work in
 * {@link #IN_PROGRESS} and hand over in {@link #IN_REVIEW}; only a human (or an ant whose colony
 * allows it) moves a task to {@link #DONE}; {@link #BLOCKED} needs a human, with a reason.
 */
public enum TaskState {
  BACKLOG("backlog", "Backlog"),
  TODO("todo", "To Do"),
  IN_PROGRESS("in_progress", "In Progress"),
  IN_REVIEW("in_review", "In Review"),
  DONE("done", "Done"),
  BLOCKED("blocked", "Blocked");

  private final String word;
  private final String label;

  TaskState(String word, String label) {
    this.word = word;
    this.label = label;
  }

  /** The search attribute's value and the CLI's word: {@code todo}, {@code in_review}, ... */
  public String word() {
    return word;
  }

  /** The column's title: {@code To Do}, {@code In Review}, ... */
  public String label() {
    return label;
  }

  /**
   * Reads a state as people type it: {@code todo}, {@code to-do}, {@code "To Do"},
   * {@code in_review}, {@code review}, {@code progress}, ... Null when it names none.
   */
  public static TaskState parse(String s) {
    if (s == null) {
      return null;
    }
    String k = s.strip().toLowerCase(Locale.ROOT).replaceAll("[\\s_-]+", "");
    return switch (k) {
      case "backlog" -> BACKLOG;
      case "todo" -> TODO;
      case "inprogress", "progress", "doing" -> IN_PROGRESS;
      case "inreview", "review" -> IN_REVIEW;
      case "done" -> DONE;
      case "blocked" -> BLOCKED;
      default -> null;
    };
  }
}
