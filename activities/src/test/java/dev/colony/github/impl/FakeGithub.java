package dev.colony.github.impl;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;

/**
 * GitHub's issues API on loopback: {@code GET /repos/{owner}/{repo}/issues} with ETags and 304s,
 * pull requests listed among issues (as GitHub does), pagination by {@code Link}, and a rate
 * limit on demand ({@code 403} with {@code x-ratelimit-remaining: 0} and {@code x-ratelimit-reset}).
 */
public final class FakeGithub implements Closeable {
  private static final ObjectMapper JSON = new ObjectMapper();

  record Issue(int number, String title, List<String> labels, String body, boolean pullRequest, boolean closed,
      String updatedAt) {
    Issue(int number, String title, List<String> labels, String body, boolean pullRequest) {
      this(number, title, labels, body, pullRequest, false, "2026-01-01T00:00:00Z");
    }
  }

  private final MockWebServer server = new MockWebServer();
  private final Map<String, Map<Integer, Issue>> repos = new TreeMap<>();
  private int version;
  private final AtomicInteger rateLimits = new AtomicInteger();
  public final List<String> log = new CopyOnWriteArrayList<>();
  public final AtomicInteger notModified = new AtomicInteger();
  public volatile String lastAuthorization;
  public int pageSize = 100;

  public FakeGithub() throws IOException {
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest r) {
        return handle(r);
      }
    });
    server.start();
  }

  public String url() {
    return "http://127.0.0.1:" + server.getPort();
  }

  public synchronized void issue(String repo, int number, String title, List<String> labels, String body) {
    repos.computeIfAbsent(repo, k -> new TreeMap<>()).put(number, new Issue(number, title, labels, body, false));
    version++;
  }

  public synchronized void pullRequest(String repo, int number, String title, List<String> labels) {
    repos.computeIfAbsent(repo, k -> new TreeMap<>()).put(number, new Issue(number, title, labels, "", true));
    version++;
  }

  /** Closes issue {@code number} at {@code updatedAt} (ISO-8601): listed with state=closed from then on. */
  public synchronized void close(String repo, int number, String updatedAt) {
    Issue i = repos.get(repo).get(number);
    repos.get(repo).put(number, new Issue(number, i.title(), i.labels(), i.body(), i.pullRequest(), true, updatedAt));
    version++;
  }

  public int pendingRateLimits() {
    return rateLimits.get();
  }

  public void rateLimitNext(int n) {
    rateLimits.set(n);
  }

  private synchronized MockResponse handle(RecordedRequest r) {
    String path = r.getUrl().encodedPath();
    log.add(r.getMethod() + " " + r.getUrl().encodedPath() + "?" + r.getUrl().encodedQuery()
        + (r.getHeaders().get("If-None-Match") == null ? "" : " [If-None-Match]"));
    lastAuthorization = r.getHeaders().get("Authorization");
    String[] s = path.split("/");
    if (s.length != 5 || !s[1].equals("repos") || !s[4].equals("issues")) {
      return new MockResponse.Builder().code(404).body("{\"message\":\"Not Found\"}").build();
    }
    if (rateLimits.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      return new MockResponse.Builder().code(403).setHeader("x-ratelimit-remaining", "0")
          .setHeader("x-ratelimit-reset", Long.toString(System.currentTimeMillis() / 1000 + 30))
          .body("{\"message\":\"API rate limit exceeded\"}").build();
    }
    String repo = s[2] + "/" + s[3];
    String etag = "\"v" + version + "\"";
    String page = r.getUrl().queryParameter("page");
    int p = page == null ? 1 : Integer.parseInt(page);
    if (p == 1 && etag.equals(r.getHeaders().get("If-None-Match"))) {
      notModified.incrementAndGet();
      return new MockResponse.Builder().code(304).setHeader("ETag", etag).build();
    }
    // state=open (the default) or closed; since= keeps those updated at or after it, sorted by update.
    boolean closed = "closed".equals(r.getUrl().queryParameter("state"));
    String since = r.getUrl().queryParameter("since");
    List<Issue> all = new ArrayList<>(repos.getOrDefault(repo, Map.of()).values().stream()
        .filter(i -> i.closed() == closed && (since == null || i.updatedAt().compareTo(since) >= 0)).toList());
    if ("updated".equals(r.getUrl().queryParameter("sort"))) {
      all.sort(java.util.Comparator.comparing(Issue::updatedAt));
    }
    int from = (p - 1) * pageSize;
    List<Issue> slice = all.subList(Math.min(from, all.size()), Math.min(from + pageSize, all.size()));
    ArrayNode out = JSON.createArrayNode();
    for (Issue i : slice) {
      ObjectNode o = out.addObject().put("number", i.number()).put("title", i.title()).put("state", i.closed() ? "closed" : "open").put("updated_at", i.updatedAt())
          .put("html_url", "https://github.com/" + repo + "/issues/" + i.number()).put("body", i.body());
      ArrayNode labels = o.putArray("labels");
      i.labels().forEach(l -> labels.addObject().put("name", l));
      if (i.pullRequest()) {
        o.putObject("pull_request").put("url", "https://api.github.com/repos/" + repo + "/pulls/" + i.number());
      }
    }
    MockResponse.Builder b = new MockResponse.Builder().code(200).setHeader("ETag", etag)
        .setHeader("Content-Type", "application/json").setHeader("x-ratelimit-remaining", "4999")
        .body(out.toString());
    if (from + pageSize < all.size()) {
      b.setHeader("Link", "<" + url() + path + "?state=" + (closed ? "closed" : "open") + "&per_page=" + pageSize
          + (since == null ? "" : "&since=" + since) + (closed ? "&sort=updated" : "") + "&page=" + (p + 1)
          + ">; rel=\"next\"");
    }
    return b.build();
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
