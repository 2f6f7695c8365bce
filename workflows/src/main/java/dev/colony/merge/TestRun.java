package dev.colony.merge;

/**
 * The test command's run on a rebased head.
 *
 * @param exitCode the exit code (-1 when it timed out and was killed)
 * @param timedOut whether it hit the test timeout (its process tree was killed)
 * @param tail the last lines of its output (at most {@value #MAX_TAIL} characters, secrets masked)
 */
public record TestRun(boolean passed, int exitCode, boolean timedOut, long millis, String tail) {
  public static final int MAX_TAIL = 4000;
}
