package dev.colony.github.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colony.secrets.Secrets;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * The merge queue's pull requests over GitHub's REST API (land mode {@code pull_request}): one
 * opened for a branch already pushed, or the open one GitHub already has for it (a retry). A
 * refusal (401, 403, 404, 422) is one non-retryable line; anything else an {@link IOException} the
 * activity retries. The token comes from the colony's environment ({@code github_token}, else
 * {@code GITHUB_TOKEN}) and is registered with {@link Secrets} so no text carries it; the API is
 * {@code COLONY_GITHUB_API_URL} or GitHub's.
 */
public final class PullRequests {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final MediaType JSON_TYPE = MediaType.get("application/json; charset=utf-8");

  private final OkHttpClient http;
  private final Secrets secrets;

  public PullRequests(OkHttpClient http, Secrets secrets) {
    this.http = http;
    this.secrets = secrets;
  }

  /**
   * Opens a pull request of {@code branch} into {@code base} on {@code githubRepo} (owner/name).
   *
   * @param env the colony's environment
   * @param tokenVar the variable holding the token; null: {@code GITHUB_TOKEN}
   * @return the pull request's page
   */
  public String open(Map<String, String> env, String tokenVar, String githubRepo, String branch, String base,
      String title, String body) throws IOException {
    String token = tokenVar == null ? null : env.get(tokenVar);
    secrets.register(tokenVar == null ? "GITHUB_TOKEN" : tokenVar, token);
    String api = env.getOrDefault("COLONY_GITHUB_API_URL", "https://api.github.com");
    api = api.endsWith("/") ? api.substring(0, api.length() - 1) : api;
    var json = JSON.createObjectNode();
    json.put("title", title);
    json.put("head", branch);
    json.put("base", base);
    json.put("body", body == null ? "" : body);
    Request post = request(api + "/repos/" + githubRepo + "/pulls", token)
        .post(RequestBody.create(JSON.writeValueAsString(json), JSON_TYPE)).build();
    try (Response r = http.newCall(post).execute()) {
      String text = r.body() == null ? "" : r.body().string();
      if (r.isSuccessful()) {
        return JSON.readTree(text).path("html_url").asText();
      }
      if (r.code() == 422 && text.contains("already exists")) {
        return openOne(api, token, githubRepo, branch);
      }
      if (r.code() == 401 || r.code() == 403 || r.code() == 404 || r.code() == 422) {
        throw ApplicationFailure.newNonRetryableFailure(secrets.redact("GitHub refused the pull request for " + branch
            + " on " + githubRepo + " (" + r.code() + "): " + bounded(text.replaceAll("\\s+", " ").strip(), 500)),
            "GithubRefused");
      }
      throw new IOException("GitHub answered " + r.code() + " opening a pull request for " + branch);
    }
  }

  /** The open pull request of {@code branch} GitHub says exists. */
  private String openOne(String api, String token, String githubRepo, String branch) throws IOException {
    String owner = githubRepo.substring(0, githubRepo.indexOf('/'));
    String q = java.net.URLEncoder.encode(owner + ":" + branch, StandardCharsets.UTF_8);
    Request get = request(api + "/repos/" + githubRepo + "/pulls?head=" + q + "&state=open", token).get().build();
    try (Response g = http.newCall(get).execute()) {
      if (!g.isSuccessful()) {
        throw new IOException("GitHub answered " + g.code() + " listing the pull requests of " + branch);
      }
      JsonNode list = JSON.readTree(g.body().string());
      if (list.isArray() && !list.isEmpty()) {
        return list.get(0).path("html_url").asText();
      }
      throw new IOException("GitHub says a pull request for " + branch + " exists but lists none open");
    }
  }

  /** A request to GitHub's REST API, with its version and the token when there is one. */
  static Request.Builder request(String url, String token) {
    Request.Builder b = new Request.Builder().url(url)
        .header("Accept", "application/vnd.github+json")
        .header("X-GitHub-Api-Version", "2022-11-28")
        .header("User-Agent", "colony");
    if (token != null && !token.isBlank()) {
      b.header("Authorization", "Bearer " + token);
    }
    return b;
  }

  /** At most {@code max} characters: the first and the last part of a long text. */
  private static String bounded(String s, int max) {
    if (s.length() <= max) {
      return s;
    }
    int head = max / 2 - 10;
    return s.substring(0, head) + "\n[…]\n" + s.substring(s.length() - (max - head - 6));
  }
}
