package dev.colony.task;

import java.util.List;

/**
 * An ant's claim on a task (update {@code claim}). Exactly one claim wins a To Do task: the
 * task's workflow applies updates one at a time, and its validator refuses a task that is not
 * To Do or not for this ant. A claim repeated with the same {@code token} (an activity retried
 * after a worker died) is accepted again and answers the same brief, so a claim is never lost.
 *
 * @param ant the claiming ant
 * @param token unique per claim attempt of this ant (its workflow id and a sequence number)
 * @param takerTags what the ant takes ({@link Assignee#takerTags}); the task must carry one of them
 */
public record Claim(String ant, String token, List<String> takerTags) {
  public Claim {
    takerTags = takerTags == null ? List.of() : List.copyOf(takerTags);
  }
}
