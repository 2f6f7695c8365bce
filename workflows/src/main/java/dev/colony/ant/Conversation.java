package dev.colony.ant;

/**
 * The agent conversation of the last session (what a supervisor's restart resumes, carried
 * across continue-as-new) and the one the next session resumes (this run only).
 */
final class Conversation {
  private String last;
  private String resumeNext;

  /** What it carries across continue-as-new (the JSON name of the ant's memory). */
  record Memory(String lastConversation) {}

  Conversation(String last) {
    this.last = last;
  }

  Conversation(Memory m) {
    this(m.lastConversation());
  }

  Memory memory() {
    return new Memory(last);
  }

  /** A session reported its conversation id. */
  void remember(String id) {
    last = id;
  }

  String last() {
    return last;
  }

  /** A restart: the next session resumes the last conversation, or starts clean. */
  void resumeNextFrom(boolean clean) {
    resumeNext = clean ? null : last;
  }

  /** What the next session resumes (null: a fresh one); asked once per session. */
  String takeResume() {
    String r = resumeNext;
    resumeNext = null;
    return r;
  }

  /** The task is dropped: nothing to resume. */
  void forgetLast() {
    last = null;
  }

  /** The task or the host is gone: nothing to resume now or later. */
  void forget() {
    last = null;
    resumeNext = null;
  }
}
