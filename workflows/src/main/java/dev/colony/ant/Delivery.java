package dev.colony.ant;

/**
 * How queued instructions reach sessions: failed sessions in a row that carried them, and how
 * many still go one at a time (a batch failed sessions carried too often is split, so only the
 * instruction the agent cannot take is dropped, never the others).
 */
final class Delivery {
  private int failures;
  private int alone;

  /** What it carries across continue-as-new (the JSON names of the ant's memory). */
  record Memory(int deliveryFailures, int deliverAlone) {}

  Delivery(int failures, int alone) {
    this.failures = failures;
    this.alone = alone;
  }

  Delivery(Memory m) {
    this(m.deliveryFailures(), m.deliverAlone());
  }

  Memory memory() {
    return new Memory(failures, alone);
  }

  /** One more failed session carried the instructions; returns how many in a row. */
  int failedOnce() {
    return ++failures;
  }

  int failures() {
    return failures;
  }

  void resetFailures() {
    failures = 0;
  }

  /** Split a batch: its instructions go to sessions one at a time from now on. */
  void oneAtATime(int count) {
    failures = 0;
    alone = Math.max(alone, count);
  }

  /** One instruction delivered alone is settled (it ran, or it was dropped). */
  void oneSettled() {
    if (alone > 0) {
      alone--;
    }
  }

  boolean alone() {
    return alone > 0;
  }

  int aloneLeft() {
    return alone;
  }
}
