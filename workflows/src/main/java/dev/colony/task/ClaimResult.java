package dev.colony.task;

/** The answer to a claim: the brief when taken, else why not (another ant took it, it moved, ...). */
public record ClaimResult(boolean taken, String why, TaskBrief brief) {
  public static ClaimResult took(TaskBrief brief) {
    return new ClaimResult(true, null, brief);
  }

  public static ClaimResult refused(String why) {
    return new ClaimResult(false, why, null);
  }
}
