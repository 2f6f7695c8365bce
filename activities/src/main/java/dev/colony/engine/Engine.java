package dev.colony.engine;

import dev.colony.session.SessionResult;

/**
 * Runs one agent session to its end and reduces whatever happened to a {@link SessionResult}.
 * Engine errors are outcomes, not exceptions; an engine throws only when the session was
 * cancelled ({@link SessionCancelledException}) or the worker itself is failing.
 */
public interface Engine {
  SessionResult run(SessionContext context) throws InterruptedException;
}
