package dev.colony.merge;

import java.util.List;

/**
 * Conflict-aware scheduling: an ant about to start work on a repository declares the paths it
 * will touch (globs: its {@code workspace.touches}, and its task's {@code touches:} line). The
 * queue grants the claim unless another ant's current work (claimed and not yet landed) overlaps.
 *
 * @param globs repository-relative globs ({@code src/api/**}, {@code docs/*.md})
 * @param antWorkflowId where the queue signals PATHS_FREE when the paths it waits for are freed
 * @param undeclared true from an ant that declares no paths and claims {@code **} for them
 *     ({@code undeclared: everything}); false from an ant that declares its paths; null from an ant
 *     older than that (its claims are judged by the rules of its time: an earlier claim's submitted
 *     work lets its next claim through)
 */
public record PathClaim(String ant, List<String> globs, String taskId, String antWorkflowId, Boolean undeclared) {
  public PathClaim {
    globs = globs == null ? List.of() : List.copyOf(globs);
  }

  public PathClaim(String ant, List<String> globs, String taskId, String antWorkflowId) {
    this(ant, globs, taskId, antWorkflowId, null);
  }
}
