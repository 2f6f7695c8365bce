package dev.colony.engine;

/** Helpers for the agent processes engines start. */
public final class Processes {
  private Processes() {}

  /** Kills the agent and everything it started (shells, test runners, ...). */
  public static void killTree(Process process) {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }
}
