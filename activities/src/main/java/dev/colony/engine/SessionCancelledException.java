package dev.colony.engine;

/** The workflow cancelled the session (e.g. {@code stop}); the engine has torn it down. */
public final class SessionCancelledException extends RuntimeException {
  public SessionCancelledException(Throwable cause) {
    super("session cancelled", cause);
  }
}
