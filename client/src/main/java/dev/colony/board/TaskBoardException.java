package dev.colony.board;

/** A board operation that could not be done, said in one sentence (no such task, not in review, no worker answered, ...). */
public class TaskBoardException extends RuntimeException {
  public TaskBoardException(String message) {
    super(message);
  }

  public TaskBoardException(String message, Throwable cause) {
    super(message, cause);
  }
}
