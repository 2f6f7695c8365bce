package dev.colony.github.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colony.config.Environment;
import dev.colony.github.GithubActivities;
import dev.colony.github.IssuePage;
import dev.colony.trigger.IssueEvent;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * Lists a repository's open issues (and, for issues made tasks, those closed since a time) over
 * GitHub's REST API on OkHttp. The first page is a
 * conditional request (ETag / If-None-Match): an unchanged repository answers 304, which costs no
 * rate limit. Pull requests (which GitHub lists as issues) are left out. A rate limit
 * ({@code x-ratelimit-remaining: 0} with {@code x-ratelimit-reset}, or {@code retry-after}) is
 * returned as a wait for the watcher, never a failure.
 */
public final class GithubActivitiesImpl implements GithubActivities {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern NEXT = Pattern.compile("<([^>]+)>;\\s*rel=\"next\"");
  /** At most this many pages of 100 issues per poll. */
  static final int MAX_PAGES = 10;

  private final OkHttpClient http;

  public GithubActivitiesImpl(OkHttpClient http) {
    this.http = http;
  }

  /** At most this many pages of 100 closed issues per poll (the rest come at the next, from a later since). */
  static final int MAX_CLOSED_PAGES = 3;

  @Override
  public IssuePage listOpenIssues(String colonyDir, String tokenVar, String repo, String etag) {
    return list(colonyDir, tokenVar, repo, "state=open&sort=created&direction=asc&per_page=100", etag, MAX_PAGES, false);
  }

  @Override
  public IssuePage listClosedIssues(String colonyDir, String tokenVar, String repo, String since, String etag) {
    String query = "state=closed&sort=updated&direction=asc&per_page=100"
        + (since == null ? "" : "&since=" + java.net.URLEncoder.encode(since, java.nio.charset.StandardCharsets.UTF_8));
    return list(colonyDir, tokenVar, repo, query, etag, MAX_CLOSED_PAGES, true);
  }

  private IssuePage list(String colonyDir, String tokenVar, String repo, String query, String etag, int maxPages,
      boolean closed) {
    Map<String, String> env = Environment.forColony(Path.of(colonyDir));
    String token = tokenVar == null ? null : env.get(tokenVar);
    String api = env.getOrDefault("COLONY_GITHUB_API_URL", "https://api.github.com");
    api = api.endsWith("/") ? api.substring(0, api.length() - 1) : api;
    String url = api + "/repos/" + repo + "/issues?" + query;
    List<IssueEvent> issues = new ArrayList<>();
    String firstEtag = null;
    String newest = null;
    try {
      for (int page = 0; page < maxPages && url != null; page++) {
        Request.Builder rb = new Request.Builder().url(url)
            .header("Accept", "application/vnd.github+json")
            .header("X-GitHub-Api-Version", "2022-11-28")
            .header("User-Agent", "colony");
        if (token != null && !token.isBlank()) {
          rb.header("Authorization", "Bearer " + token);
        }
        if (page == 0 && etag != null) {
          rb.header("If-None-Match", etag);
        }
        try (Response r = http.newCall(rb.build()).execute()) {
          if (page == 0 && r.code() == 304) {
            return new IssuePage(true, etag, List.of(), 0);
          }
          long wait = rateLimitWait(r);
          if (wait > 0 && (r.code() == 403 || r.code() == 429)) {
            return new IssuePage(true, etag, List.of(), wait);
          }
          if (r.code() == 401 || r.code() == 404) {
            throw ApplicationFailure.newNonRetryableFailure("GitHub answered " + r.code() + " for " + repo
                + (r.code() == 401 ? ": check the colony's GitHub token" : ": no such repository, or the token cannot see it"),
                "GithubRefused");
          }
          if (!r.isSuccessful()) {
            throw new IOException("GitHub answered " + r.code() + " for " + repo);
          }
          if (page == 0) {
            firstEtag = r.header("ETag");
          }
          for (JsonNode i : JSON.readTree(r.body().string())) {
            if (i.has("pull_request")) {
              continue;
            }
            List<String> labels = new ArrayList<>();
            for (JsonNode l : i.path("labels")) {
              labels.add(l.isTextual() ? l.asText() : l.path("name").asText());
            }
            issues.add(new IssueEvent(repo, i.path("number").asInt(), i.path("title").asText(""),
                i.path("html_url").asText(""), labels, i.path("body").asText(""),
                closed || "closed".equals(i.path("state").asText())));
            String updated = i.path("updated_at").asText(null);
            if (updated != null && (newest == null || updated.compareTo(newest) > 0)) {
              newest = updated;
            }
          }
          String link = r.header("Link");
          Matcher m = link == null ? null : NEXT.matcher(link);
          url = m != null && m.find() ? m.group(1) : null;
        }
      }
    } catch (IOException e) {
      throw ApplicationFailure.newFailure("GitHub poll of " + repo + " failed: " + e.getMessage(), "GithubUnavailable");
    }
    return new IssuePage(false, firstEtag, issues, 0, newest);
  }

  /** Seconds GitHub asks us to wait (retry-after, or until the rate-limit window resets); 0 if none. */
  static long rateLimitWait(Response r) {
    String retryAfter = r.header("retry-after");
    if (retryAfter != null) {
      try {
        return Math.max(1, Long.parseLong(retryAfter.trim()));
      } catch (NumberFormatException ignored) {
        // fall through
      }
    }
    if ("0".equals(r.header("x-ratelimit-remaining")) && r.header("x-ratelimit-reset") != null) {
      try {
        long reset = Long.parseLong(r.header("x-ratelimit-reset").trim());
        return Math.max(1, reset - System.currentTimeMillis() / 1000);
      } catch (NumberFormatException ignored) {
        return 60;
      }
    }
    return 0;
  }
}
