package dev.colony.cli;

/** A command used wrongly (a malformed option value): one line, exit code 2. */
final class UsageError extends RuntimeException {
  UsageError(String message) {
    super(message);
  }
}
