package dev.colony.cli;

/** A mistake the user can fix: printed as one clear message, never as a stack trace. */
final class UserError extends RuntimeException {
  UserError(String message) {
    super(message);
  }
}
