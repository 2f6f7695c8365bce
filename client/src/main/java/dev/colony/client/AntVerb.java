package dev.colony.client;

/**
 * What a human (or an ant) tells one ant, the same on every surface: the CLI, the console, the
 * chat and the dev terminal. Made only by {@link Verbs}, which holds the words, the old names and
 * the bounds; sent by {@link AntSteering}. {@link Status} and {@link Stats} are reads: each
 * surface shows them its own way.
 */
public sealed interface AntVerb {
  /** The verb's word as the CLI and the console name it (never an old name). */
  String word();

  /** Pause after the current session (signal {@code pause}). */
  record Pause() implements AntVerb {
    @Override
    public String word() {
      return "pause";
    }
  }

  /** Resume a paused ant, or cut its wait short (signal {@code resume}). */
  record Resume() implements AntVerb {
    @Override
    public String word() {
      return "resume";
    }
  }

  /** Stop the ant for good: its running session is cancelled and its workflow ends (signal {@code stop}). */
  record Stop() implements AntVerb {
    @Override
    public String word() {
      return "stop";
    }
  }

  /** Drop the current task and the queue; an escalated ant goes on (signal {@code abort}). */
  record Abort() implements AntVerb {
    @Override
    public String word() {
      return "abort";
    }
  }

  /** Drop the queued instructions (signal {@code clear}). */
  record Clear() implements AntVerb {
    @Override
    public String word() {
      return "clear";
    }
  }

  /**
   * A work instruction (signal {@code message}); {@code urgent} interrupts the running session.
   *
   * @param from the sending ant, or null for a human
   * @param id the idempotency key, or null: a fresh one per send
   */
  record Send(String text, boolean urgent, String from, String id) implements AntVerb {
    @Override
    public String word() {
      return urgent ? "urgent" : "send";
    }
  }

  /** Approve or deny a confirmation request (signal {@code decide}); {@code id} null: the oldest waiting. */
  record Decide(Integer id, boolean approve, String note) implements AntVerb {
    @Override
    public String word() {
      return approve ? "approve" : "deny";
    }
  }

  /** Read: the ant's state, queue and next wake-up. */
  record Status() implements AntVerb {
    @Override
    public String word() {
      return "status";
    }
  }

  /** Read: sessions, turns, cost and tokens. */
  record Stats() implements AntVerb {
    @Override
    public String word() {
      return "stats";
    }
  }
}
