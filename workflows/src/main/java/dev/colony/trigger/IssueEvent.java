package dev.colony.trigger;

import java.util.List;

/**
 * A GitHub issue that may wake an ant, as seen by a poll or a webhook. The body is bounded at the
 * source ({@link #MAX_BODY}); the key {@code owner/repo#number} identifies the issue for ever.
 */
public record IssueEvent(String repo, int number, String title, String url, List<String> labels, String body) {
  public static final int MAX_BODY = 4_000;
  public static final int MAX_TITLE = 300;

  public IssueEvent {
    labels = labels == null ? List.of() : List.copyOf(labels);
    title = title == null ? "" : title.length() > MAX_TITLE ? title.substring(0, MAX_TITLE) + "…" : title;
    body = body == null ? "" : body.length() > MAX_BODY
        ? body.substring(0, MAX_BODY) + "\n[issue body cut at " + MAX_BODY + " characters]" : body;
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
