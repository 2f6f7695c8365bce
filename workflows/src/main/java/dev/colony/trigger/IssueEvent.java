package dev.colony.trigger;

import dev.colony.text.SafeText;
import java.util.List;

/**
 * A GitHub issue that may wake an ant, as seen by a poll or a webhook. The body is bounded at the
 * source ({@link #MAX_BODY}); the key {@code owner/repo#number} identifies the issue for ever.
 * {@code closed}: the issue was closed (a poll of closed issues, or the webhook's {@code closed}
 * action); it wakes no ant, it moves the issue's task to Done.
 */
public record IssueEvent(String repo, int number, String title, String url, List<String> labels, String body,
    boolean closed) {
  public static final int MAX_BODY = 4_000;
  public static final int MAX_TITLE = 300;

  public IssueEvent {
    labels = labels == null ? List.of() : List.copyOf(labels);
    // Cleaned as it arrives (a poll, a webhook, the signal API): it goes into a prompt file.
    title = title == null ? "" : SafeText.clean(title);
    title = title.length() > MAX_TITLE ? SafeText.cut(title, MAX_TITLE) + "…" : title;
    body = body == null ? "" : SafeText.clean(body);
    body = body.length() > MAX_BODY
        ? SafeText.cut(body, MAX_BODY) + "\n[issue body cut at " + MAX_BODY + " characters]" : body;
    url = SafeText.clean(url);
  }

  public IssueEvent(String repo, int number, String title, String url, List<String> labels, String body) {
    this(repo, number, title, url, labels, body, false);
  }

  public String key() {
    return repo.toLowerCase(java.util.Locale.ROOT) + "#" + number;
  }

  /** True when the issue has every label of {@code required} (case-insensitive, as GitHub compares). */
  public boolean hasAll(List<String> required) {
    for (String r : required) {
      if (labels.stream().noneMatch(l -> l.equalsIgnoreCase(r))) {
        return false;
      }
    }
    return true;
  }
}
