package dev.colony.spec;

/** What a retried session attempt (after a worker crash) does with the agent's conversation. */
public enum RecoveryPolicy {
  /** Continue the same conversation when the engine can. */
  RESUME,
  /** Start a fresh conversation. */
  CLEAN
}
