package dev.colony.ant;

/**
 * The ant's chat posts in order: each post's number (its idempotency key, carried across
 * continue-as-new so keys never repeat) and whether the ant has announced itself.
 */
final class ChatSequence {
  private long lastPost;
  private boolean announced;

  /** What it carries across continue-as-new (the JSON names of the ant's memory). */
  record Memory(long postSequence, boolean announced) {}

  ChatSequence(long lastPost, boolean announced) {
    this.lastPost = lastPost;
    this.announced = announced;
  }

  ChatSequence(Memory m) {
    this(m.postSequence(), m.announced());
  }

  Memory memory() {
    return new Memory(lastPost, announced);
  }

  /** The number of the next post. */
  long next() {
    return ++lastPost;
  }

  long last() {
    return lastPost;
  }

  /** True the first time only: the ant announces itself once in its life. */
  boolean announceOnce() {
    if (announced) {
      return false;
    }
    announced = true;
    return true;
  }

  boolean announced() {
    return announced;
  }
}
