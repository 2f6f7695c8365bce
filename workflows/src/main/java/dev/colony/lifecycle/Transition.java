package dev.colony.lifecycle;

/** The result of one event: the new phase and what the workflow must do. */
public record Transition(Phase phase, SideEffect effect) {
  static Transition to(Phase phase) {
    return new Transition(phase, SideEffect.NONE);
  }
}
