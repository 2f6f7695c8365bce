package dev.colony.overseer;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** The overseer's one side effect: a single model call that judges the agent's recent turns. */
@ActivityInterface
public interface OverseerActivities {
  @ActivityMethod(name = "EvaluateTurns")
  Verdict evaluate(EvaluationRequest request);
}
