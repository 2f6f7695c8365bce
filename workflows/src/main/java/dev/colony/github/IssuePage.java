package dev.colony.github;

import dev.colony.trigger.IssueEvent;
import java.util.List;

/**
 * One poll of a repository's open issues (pull requests excluded).
 *
 * @param notModified GitHub answered 304 to the ETag: nothing changed, no rate limit spent
 * @param etag the ETag to send next time
 * @param retryAfterSeconds when GitHub asks to slow down (rate limit), how long to wait; else 0
 * @param newestUpdate the latest {@code updated_at} among the issues (ISO-8601, GitHub's clock), for
 *     the next {@code since}; null when none was listed
 */
public record IssuePage(boolean notModified, String etag, List<IssueEvent> issues, long retryAfterSeconds,
    String newestUpdate) {
  public IssuePage {
    issues = issues == null ? List.of() : List.copyOf(issues);
  }

  public IssuePage(boolean notModified, String etag, List<IssueEvent> issues, long retryAfterSeconds) {
    this(notModified, etag, issues, retryAfterSeconds, null);
  }
}
