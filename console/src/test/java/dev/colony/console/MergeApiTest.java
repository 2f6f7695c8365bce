package dev.colony.console;

import dev.colony.client.FakeSource;
import dev.colony.client.FakeMergeSource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colony.secrets.Secrets;
import dev.colony.merge.ItemState;
import dev.colony.merge.MergeItem;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The merge queues' API over HTTP against in-memory queues: the cards, decisions, their refusals, the guard, hostile text. */
@Timeout(60)
class MergeApiTest {
  static final String TOKEN = "operator-token-0123456789";
  static final String READ = "reader-token-0123456789";
  static final MediaType JSON = MediaType.get("application/json");
  static final String SECRET = "sk-live-9f8e7d6c5b4a";
  static final String HOSTILE = "<img src=x onerror=alert(1)><script>alert('x')</script>\u001b[31mred\u001b[0m \"q\" & " + SECRET;

  final FakeSource source = new FakeSource();
  final FakeMergeSource merges = new FakeMergeSource();
  final Secrets secrets = new Secrets();
  final OkHttpClient http = new OkHttpClient.Builder().followRedirects(false).readTimeout(Duration.ofSeconds(20)).build();
  ConsoleServer server;

  void start(String token, String readToken) {
    source.put(FakeSource.row("alpha", 1, "session 3 running"));
    secrets.register("PAID_API_KEY", SECRET);
    merges.put(FakeMergeSource.card("app", List.of(
        FakeMergeSource.item("alpha-2", "alpha", ItemState.LANDING, "testing", 0, null, "t1", 60_000),
        FakeMergeSource.item("beta-1", "beta", ItemState.QUEUED, null, 0, null, null, 30_000),
        FakeMergeSource.item("gamma-4", "gamma", ItemState.NEEDS_HUMAN, null, 3, "conflict in src/a.txt " + HOSTILE, "t7", 3_600_000),
        FakeMergeSource.item("delta-1", "delta", ItemState.AWAITING_REVIEW, null, 0, null, "t9", 120_000)),
        List.of(FakeMergeSource.landed("alpha-1", "alpha", 3, 42_000, 1_200, 600_000, 4, null)),
        Map.of("alpha", List.of("src/api/**")), Map.of("beta", "alpha: src/api/**"),
        Map.of("src/api", List.of("alpha", "beta"))));
    server = ConsoleServer.start(ConsoleServer.Options.defaults().withBind("127.0.0.1", 0).withTokens(token, readToken),
        source, null, merges, secrets);
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  Response get(String path, String... headers) throws IOException {
    Request.Builder b = new Request.Builder().url(server.url() + path);
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.newCall(b.build()).execute();
  }

  Response post(String path, String json, String... headers) throws IOException {
    Request.Builder b = new Request.Builder().url(server.url() + path).post(RequestBody.create(json, JSON));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.newCall(b.build()).execute();
  }

  static JsonNode json(Response r) throws IOException {
    try (r) {
      assertEquals(200, r.code());
      return Views.MAPPER.readTree(r.body().string());
    }
  }

  static String refused(Response r) throws IOException {
    try (r) {
      return r.code() + " " + Views.MAPPER.readTree(r.body().string()).path("error").asText();
    }
  }

  static String decide(String item, String action) {
    return "{\"item\": \"" + item + "\", \"action\": \"" + action + "\"}";
  }

  @Test
  void theQueuesAreListedWithTheirLineClaimsLandingsAndHotPaths() throws IOException {
    start(null, null);
    JsonNode j = json(get("/api/merge"));
    assertEquals("hello", j.get("colony").asText());
    assertEquals(1, j.get("queues").size());
    JsonNode q = j.get("queues").get(0);
    assertEquals("app", q.get("repo").asText());
    assertEquals("main", q.get("target").asText());
    assertEquals("REBASE", q.get("land").asText());
    assertEquals(4, q.get("items").size());
    assertEquals("LANDING", q.get("items").get(0).get("state").asText());
    assertEquals("testing", q.get("items").get(0).get("step").asText());
    assertEquals(3, q.get("items").get(2).get("tries").asInt());
    assertEquals(3, q.get("landed").get(0).get("commits").asInt());
    assertEquals("src/api/**", q.get("claims").get("alpha").get(0).asText());
    assertEquals("alpha: src/api/**", q.get("waiting").get("beta").asText());
    assertEquals(2, q.get("hotPaths").get("src/api").size());
    assertTrue(j.get("now").asLong() > 0);
  }

  @Test
  void anItemSaysWhichCommitsItsApprovalCoversAndWhichWaitForOne() throws IOException {
    start(null, null);
    long now = System.currentTimeMillis();
    merges.put(new dev.colony.merge.MergeCard("hello", "app", "main", dev.colony.merge.LandMode.REBASE, true, "9f8e7d6",
        List.of(new MergeItem("alpha-2", "alpha", "", "colony/alpha", "t1", 2, ItemState.QUEUED, null, now, now, 0,
            "task t1 approved (0f0e0d0..1a2b3c4)", null, List.of(), "ant", true,
            List.of(new dev.colony.merge.ItemPart("t1", "1a2b3c4d5e", "0f0e0d0c0b", true),
                new dev.colony.merge.ItemPart("t2", "2b3c4d5e6f", null, false)), "1a2b3c4d5e")),
        List.of(), Map.of(), Map.of(), Map.of(), 0, now));
    JsonNode it = json(get("/api/merge")).get("queues").get(0).get("items").get(0);
    assertEquals("1a2b3c4d5e", it.get("approvedHead").asText(), it.toString());
    assertEquals(2, it.get("parts").size());
    assertEquals("t2", it.get("parts").get(1).get("taskId").asText());
    assertEquals("2b3c4d5e6f", it.get("parts").get(1).get("head").asText());
    assertFalse(it.get("parts").get(1).get("approved").asBoolean());
    assertEquals("0f0e0d0c0b", it.get("parts").get(0).get("base").asText());
  }

  @Test
  void hostileTextStaysInertJsonAndSecretsAreRedacted() throws IOException {
    start(null, null);
    try (Response r = get("/api/merge")) {
      assertTrue(r.header("Content-Type").startsWith("application/json"));
      assertEquals("nosniff", r.header("X-Content-Type-Options"));
      String raw = r.body().string();
      assertFalse(raw.contains(SECRET), "the secret is redacted: " + raw);
      JsonNode reason = Views.MAPPER.readTree(raw).get("queues").get(0).get("items").get(2).get("reason");
      assertEquals("conflict in src/a.txt " + HOSTILE.replace(SECRET, "${PAID_API_KEY}"), reason.asText());
    }
  }

  @Test
  void eachDecisionReachesItsQueueWithTheUsersName() throws IOException {
    start(null, null);
    JsonNode ok = json(post("/api/merge/app/decide", decide("gamma-4", "retry"), "X-Colony-Operator", "alice"));
    assertTrue(ok.get("ok").asBoolean());
    assertTrue(ok.get("message").asText().contains("gamma-4"), ok.toString());
    assertEquals("QUEUED", ok.get("reply").get("state").asText());
    json(post("/api/merge/app/decide", decide("delta", "approve"), "X-Colony-Operator", "alice")); // an ant's name: its open item
    json(post("/api/merge/app/decide", decide("beta-1", " Cancel ")));
    assertEquals(List.of("retry gamma-4 in app by @alice", "approve delta-1 in app by @alice", "cancel beta-1 in app by @local"),
        merges.decisions);
    MergeItem gamma = merges.queues.get("app").items().stream().filter(i -> i.id().equals("gamma-4")).findFirst().orElseThrow();
    assertEquals(ItemState.QUEUED, gamma.state());
    assertEquals(0, gamma.tries());
  }

  @Test
  void anApprovalNamesTheHeadThePageShowed() throws IOException {
    start(null, null);
    json(post("/api/merge/app/decide", "{\"item\": \"delta-1\", \"action\": \"approve\", \"head\": \"1a2b3c4d\"}",
        "X-Colony-Operator", "alice"));
    assertEquals(List.of("approve delta-1 in app by @alice up to 1a2b3c4d"), merges.decisions);
    try (Response r = post("/api/merge/app/decide", "{\"item\": \"delta-1\", \"action\": \"approve\", \"head\": \"HEAD~1\"}")) {
      assertEquals(400, r.code());
      assertTrue(r.body().string().contains("head is not a commit id"));
    }
    assertEquals(1, merges.decisions.size(), "nothing sent");
  }

  @Test
  void refusalsAndBadInputAreClearErrorsAndNothingIsSent() throws IOException {
    start(null, null);
    // the queue's own refusals: 409 with its sentence
    assertEquals("409 alpha-2 is landing now: cancel it after this step",
        refused(post("/api/merge/app/decide", decide("alpha-2", "cancel"))));
    assertEquals("409 beta-1 is QUEUED, not awaiting review", refused(post("/api/merge/app/decide", decide("beta-1", "approve"))));
    assertEquals("409 no open item 'zeta-1' in the queue of app", refused(post("/api/merge/app/decide", decide("zeta-1", "retry"))));
    // an unknown repository: 404
    assertEquals("404 no merge queue 'web' runs in colony 'hello'", refused(post("/api/merge/web/decide", decide("beta-1", "cancel"))));
    // bad input: 400 naming the field, before anything is sent
    String bad = refused(post("/api/merge/app/decide", decide("beta-1", "merge")));
    assertEquals("400 unknown action 'merge' (approve, retry, cancel)", bad);
    assertTrue(refused(post("/api/merge/app/decide", "{\"action\": \"retry\"}")).startsWith("400 which item?"));
    assertTrue(refused(post("/api/merge/app/decide", decide("../etc", "retry"))).startsWith("400 item is not an item id"));
    assertTrue(refused(post("/api/merge/app/decide", "{\"item\": 3, \"action\": \"retry\"}")).startsWith("400 item must be a string"));
    assertEquals("400 the body is not JSON", refused(post("/api/merge/app/decide", "{nope")));
    assertEquals("400 the body must be a JSON object", refused(post("/api/merge/app/decide", "[1]")));
    assertTrue(refused(post("/api/merge/a%20b/decide", decide("beta-1", "retry"))).startsWith("400 not a repository name"));
    assertEquals(404, post("/api/merge/app/land", decide("beta-1", "retry")).code());
    assertEquals(404, get("/api/merge/app/decide").code(), "a decision is a POST");
    assertEquals(List.of(), merges.decisions);
    assertEquals(4L, merges.calls.get("decide"), "only the three the queue refused and the unknown repository reached it");
  }

  @Test
  void theGuardHoldsForDecisions() throws IOException {
    start(TOKEN, READ);
    String op = "Bearer " + TOKEN;
    String body = decide("gamma-4", "retry");
    assertEquals("403 cross-site requests are refused",
        refused(post("/api/merge/app/decide", body, "Authorization", op, "Origin", "http://evil.example")));
    assertEquals("403 cross-site requests are refused",
        refused(post("/api/merge/app/decide", body, "Authorization", op, "Sec-Fetch-Site", "cross-site")));
    assertEquals("403 cross-site requests are refused", refused(get("/api/merge", "Authorization", op, "Sec-Fetch-Site", "cross-site")));
    assertEquals(413, post("/api/merge/app/decide", "{\"item\": \"" + "x".repeat(ConsoleServer.MAX_BODY) + "\"}",
        "Authorization", op).code());
    try (Response r = http.newCall(new Request.Builder().url(server.url() + "/api/merge/app/decide").header("Authorization", op)
        .post(RequestBody.create("item=gamma-4&action=retry", MediaType.get("application/x-www-form-urlencoded"))).build()).execute()) {
      assertEquals(415, r.code());
    }
    assertEquals("403 this console does not answer to the host 'evil.example'",
        refused(post("/api/merge/app/decide", body, "Authorization", op, "Host", "evil.example")));
    assertEquals("403 a read-only token may not act", refused(post("/api/merge/app/decide", body, "Authorization", "Bearer " + READ)));
    assertEquals(401, post("/api/merge/app/decide", body).code());
    assertEquals(401, get("/api/merge").code(), "no token: no queues");
    assertEquals(200, get("/api/merge", "Authorization", "Bearer " + READ).code(), "the read-only token reads");
    assertEquals(List.of(), merges.decisions);
    assertEquals(null, merges.calls.get("decide"));
    // the operator's token acts
    assertEquals(200, post("/api/merge/app/decide", body, "Authorization", op).code());
    assertEquals(1, merges.decisions.size());
  }

  @Test
  void aConsoleWithoutMergeQueuesSaysSo() throws IOException {
    source.put(FakeSource.row("alpha", 1, "x"));
    server = ConsoleServer.start(ConsoleServer.Options.defaults().withBind("127.0.0.1", 0), source, secrets);
    JsonNode j = json(get("/api/merge"));
    assertEquals(0, j.get("queues").size());
    assertEquals("404 colony 'hello' has no merge queue: add merge.repos to colony.yaml",
        refused(post("/api/merge/app/decide", decide("beta-1", "retry"))));
    try (Response page = get("/merge")) {
      assertEquals(200, page.code());
      String html = page.body().string();
      assertTrue(html.contains("/static/merge.js"), html);
    }
  }
}
