package dev.colony.lifecycle;

/** What the workflow must do after a transition (the lifecycle's side effects). */
public sealed interface SideEffect {
  record None() implements SideEffect {}

  /** Keep the assembled session inputs for the spawn. */
  record StorePrompt(String prompt) implements SideEffect {}

  /** Ask the running session to stop (cancellation reaches the activity through its heartbeat). */
  record CancelSession() implements SideEffect {}

  /** The grace period is over: stop waiting for the session (the activity kills its agent). */
  record ForceStopSession() implements SideEffect {}

  /** Move on to the next session number. */
  record IncrementSession() implements SideEffect {}

  /** Tell the operators something fatal happened (🛑), the reason given. */
  record LogFatal(String message) implements SideEffect {}

  SideEffect NONE = new None();
}
