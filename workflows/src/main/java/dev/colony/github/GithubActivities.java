package dev.colony.github;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** GitHub's REST API, called from a worker (which holds the token). */
@ActivityInterface
public interface GithubActivities {
  /**
   * Open issues of {@code repo}, oldest first, with a conditional request on {@code etag}.
   *
   * @param colonyDir where the worker finds the colony's {@code .env}
   * @param tokenVar the variable holding the GitHub token (the value never leaves the worker)
   */
  @ActivityMethod(name = "ListOpenIssues")
  IssuePage listOpenIssues(String colonyDir, String tokenVar, String repo, String etag);
}
