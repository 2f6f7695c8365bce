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

  /**
   * Issues of {@code repo} closed and updated at or after {@code since} (ISO-8601; GitHub's
   * {@code state=closed&since=}), oldest update first, at most a few pages; each with
   * {@code closed} set. A conditional request on {@code etag}, as for open issues.
   */
  @ActivityMethod(name = "ListClosedIssues")
  IssuePage listClosedIssues(String colonyDir, String tokenVar, String repo, String since, String etag);
}
