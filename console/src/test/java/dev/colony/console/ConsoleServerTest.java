package dev.colony.console;

import dev.colony.client.FakeSource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colony.secrets.Secrets;
import dev.colony.overseer.Turn;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import okhttp3.FormBody;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The API's answers and every check a request passes, over HTTP against a fake colony. */
@Timeout(60)
class ConsoleServerTest {
  static final String TOKEN = "operator-token-0123456789";
  static final String READ = "reader-token-0123456789";
  static final MediaType JSON = MediaType.get("application/json");
  static final String SECRET = "sk-live-9f8e7d6c5b4a";

  final FakeSource source = new FakeSource();
  final Secrets secrets = new Secrets();
  final OkHttpClient http = new OkHttpClient.Builder().followRedirects(false).build();
  ConsoleServer server;

  ConsoleServer start(String token, String readToken) {
    source.put(FakeSource.row("alpha", 1, "waiting for the next tick"));
    source.put(FakeSource.row("beta", 1, "session 3 running"));
    source.put(FakeSource.row("gamma", 1, "backoff 2 of 5"));
    secrets.register("PAID_API_KEY", SECRET);
    server = ConsoleServer.start(ConsoleServer.Options.defaults().withBind("127.0.0.1", 0).withTokens(token, readToken),
        source, secrets);
    return server;
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  String url(String path) {
    return server.url() + path;
  }

  Response get(String path, String... headers) throws IOException {
    Request.Builder b = new Request.Builder().url(url(path));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.newCall(b.build()).execute();
  }

  /** A GET with the path exactly as given, over a plain socket. */
  String raw(String path) throws IOException {
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port())) {
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + server.port()
          + "\r\nConnection: close\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
    }
  }

  Response post(String path, RequestBody body, String... headers) throws IOException {
    Request.Builder b = new Request.Builder().url(url(path)).post(body);
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.newCall(b.build()).execute();
  }

  static JsonNode json(Response r) throws IOException {
    try (r) {
      return Views.MAPPER.readTree(r.body().string());
    }
  }

  @Test
  void colonyAnswersWithCountsAndTheSecurityHeaders() throws IOException {
    start(null, null);
    try (Response r = get("/api/colony")) {
      assertEquals(200, r.code());
      assertEquals(ConsoleServer.CSP, r.header("Content-Security-Policy"));
      assertEquals("nosniff", r.header("X-Content-Type-Options"));
      assertEquals("same-origin", r.header("Referrer-Policy"));
      assertTrue(r.header("Content-Type").startsWith("application/json"));
      JsonNode j = Views.MAPPER.readTree(r.body().string());
      assertEquals("hello", j.get("colony").asText());
      assertEquals(3, j.get("counts").get("total").asInt());
      assertEquals("operator", j.get("role").asText());
    }
  }

  @Test
  void theListIsSortedPagedAndSearchedByNamePart() throws IOException {
    start(null, null);
    JsonNode page1 = json(get("/api/ants?pageSize=2"));
    assertEquals(3, page1.get("total").asInt());
    assertEquals("alpha", page1.get("ants").get(0).get("name").asText());
    assertEquals("beta", page1.get("ants").get(1).get("name").asText());
    assertEquals("2", page1.get("next").asText());
    JsonNode page2 = json(get("/api/ants?pageSize=2&page=2"));
    assertEquals("gamma", page2.get("ants").get(0).get("name").asText());
    assertTrue(page2.get("next").isNull());
    JsonNode found = json(get("/api/ants?q=AMM"));
    assertEquals(1, found.get("total").asInt());
    assertEquals("gamma", found.get("ants").get(0).get("name").asText());
    try (Response r = get("/api/ants?pageSize=500")) {
      assertEquals(400, r.code());
    }
    try (Response r = get("/api/ants?filter=sleepy")) {
      assertEquals(400, r.code());
      assertTrue(r.body().string().contains("\"error\""));
    }
  }

  @Test
  void oneAntItsConfigAndLiveTurns() throws IOException {
    start(null, null);
    JsonNode a = json(get("/api/ants/beta"));
    assertEquals("ant/hello/beta", a.get("workflowId").asText());
    assertEquals(1, a.get("card").get("revision").asInt());
    assertEquals("do the work", json(get("/api/ants/beta/config")).get("prompt").asText());
    source.addTurns("beta", Turn.tool("Bash", "ls", "README.md", false));
    assertEquals("Bash", json(get("/api/ants/beta/live")).get("turns").get(0).get("name").asText());
    try (Response r = get("/api/ants/nobody")) {
      assertEquals(404, r.code());
    }
    try (Response r = get("/api/ants/bad$name")) {
      assertEquals(400, r.code());
    }
    try (Response r = get("/api/ants/-dash")) {
      assertEquals(400, r.code());
    }
  }

  @Test
  void inboxCostsCsvSupervisionAndMetrics() throws IOException {
    start(null, null);
    assertEquals(0, json(get("/api/inbox")).get("items").size());
    JsonNode costs = json(get("/api/costs?days=7"));
    assertEquals(7, costs.get("days").size());
    assertEquals(1.5, costs.get("totalUsd").asDouble(), 1e-9);
    try (Response r = get("/api/costs.csv?days=2")) {
      assertEquals(200, r.code());
      assertTrue(r.header("Content-Type").startsWith("text/csv"));
      String csv = r.body().string();
      assertTrue(csv.startsWith("day,ant,usd,sessions\n"), csv);
      assertEquals(1 + 3 * 2, csv.split("\n").length, csv);
    }
    try (Response r = get("/api/costs?days=99")) {
      assertEquals(400, r.code());
    }
    assertFalse(json(get("/api/supervision")).get("available").asBoolean());
    assertTrue(json(get("/api/metrics")).has("temporalCalls"));
  }

  @Test
  void actionsAreSentWithTheOperatorsName() throws IOException {
    start(null, null);
    JsonNode ok = json(post("/api/ants/alpha/pause", RequestBody.create("{}", JSON), "X-Colony-Operator", "Ada"));
    assertTrue(ok.get("ok").asBoolean());
    JsonNode sent = json(post("/api/ants/alpha/send", RequestBody.create("{\"text\":\"fix the build\"}", JSON)));
    assertTrue(sent.get("ok").asBoolean());
    assertEquals(List.of("alpha pause by Ada", "alpha send by local: fix the build"), source.actions);
    try (Response r = post("/api/ants/alpha/approve", RequestBody.create("{\"id\": 3, \"note\": \"fine\"}", JSON))) {
      assertEquals(200, r.code());
    }
    try (Response r = post("/api/ants/nobody/pause", RequestBody.create("{}", JSON))) {
      assertEquals(404, r.code());
    }
  }

  /** The refusal of the one parser of verbs, for {@code word} as the console names it. */
  private static String refusal(String word, String text, Integer id, String note) {
    return assertThrows(dev.colony.client.VerbRefused.class,
        () -> dev.colony.client.Verbs.named().action(word, text, id, note)).getMessage();
  }

  @Test
  void anActionIsReadByTheOneParserItsRefusalWordForWordAndStopEndsTheAnt() throws IOException {
    start(null, null);
    String[][] bad = {
        {"send", "{\"text\": \"  \"}", refusal("send", "  ", null, null)},
        {"urgent", "{}", refusal("urgent", null, null, null)},
        {"approve", "{\"id\": 0}", refusal("approve", null, 0, null)},
        {"deny", "{\"note\": \"" + "n".repeat(dev.colony.client.Verbs.MAX_NOTE_CHARS + 1) + "\"}",
            refusal("deny", null, null, "n".repeat(dev.colony.client.Verbs.MAX_NOTE_CHARS + 1))},
    };
    for (String[] b : bad) {
      try (Response r = post("/api/ants/alpha/" + b[0], RequestBody.create(b[1], JSON))) {
        assertEquals(400, r.code(), b[0]);
        assertEquals(b[2], Views.MAPPER.readTree(r.body().string()).get("error").asText(), b[0]);
      }
    }
    assertTrue(source.actions.isEmpty(), "nothing refused reaches the ant: " + source.actions);
    // Named (as here and in the CLI), stop is the verb that ends an ant for good; typed in a chat it does nothing.
    assertTrue(json(post("/api/ants/alpha/stop", RequestBody.create("{}", JSON))).get("ok").asBoolean());
    assertEquals(List.of("alpha stop by local"), source.actions);
  }

  @Test
  void badRequestsAreRefusedWithJsonErrors() throws IOException {
    start(null, null);
    try (Response r = post("/api/ants/alpha/explode", RequestBody.create("{}", JSON))) {
      assertEquals(400, r.code());
      assertTrue(r.body().string().contains("unknown action"));
    }
    try (Response r = post("/api/ants/alpha/send", RequestBody.create("{\"text\":", JSON))) {
      assertEquals(400, r.code());
      String body = r.body().string();
      assertTrue(body.startsWith("{\"error\":"), body);
      assertFalse(body.contains("at dev.colony"), body);
    }
    try (Response r = post("/api/ants/alpha/send", RequestBody.create("[1]", JSON))) {
      assertEquals(400, r.code());
    }
    try (Response r = post("/api/ants/alpha/send", RequestBody.create("{\"text\":\"  \"}", JSON))) {
      assertEquals(400, r.code());
    }
    try (Response r = post("/api/ants/alpha/approve", RequestBody.create("{\"id\":\"three\"}", JSON))) {
      assertEquals(400, r.code());
    }
    String huge = "{\"text\":\"" + "x".repeat(110_000) + "\"}";
    try (Response r = post("/api/ants/alpha/send", RequestBody.create(huge, JSON))) {
      assertEquals(413, r.code());
    }
    // The longest message an ant takes (16,000 characters), in three-byte characters, fits.
    String longest = "{\"text\":\"" + "漢".repeat(16_000) + "\"}";
    try (Response r = post("/api/ants/alpha/send", RequestBody.create(longest, JSON))) {
      assertEquals(200, r.code());
    }
    assertEquals(1, source.actions.size(), source.actions.toString().length() + " characters of actions");
    source.actions.clear();
    try (Response r = post("/api/ants/alpha/pause", new FormBody.Builder().add("a", "b").build())) {
      assertEquals(415, r.code());
    }
    try (Response r = post("/api/ants/alpha/pause", RequestBody.create("{}", JSON), "Origin", "http://evil.example")) {
      assertEquals(403, r.code());
    }
    try (Response r = post("/api/ants/alpha/pause", RequestBody.create("{}", JSON), "Sec-Fetch-Site", "cross-site")) {
      assertEquals(403, r.code());
    }
    try (Response r = get("/api/colony", "Host", "rebound.example:" + server.port())) {
      assertEquals(403, r.code());
    }
    // A loopback name on another port (an SSH tunnel, a forwarded port) is still this console.
    try (Response r = get("/api/colony", "Host", "localhost:9000")) {
      assertEquals(200, r.code());
    }
    // A page on another site cannot read the API or hold an event stream.
    try (Response r = get("/api/colony", "Sec-Fetch-Site", "cross-site")) {
      assertEquals(403, r.code());
    }
    try (Response r = get("/api/colony", "Host", "localhost:" + server.port())) {
      assertEquals(200, r.code());
    }
    try (Response r = http.newCall(new Request.Builder().url(url("/api/ants/alpha/pause"))
        .put(RequestBody.create("{}", JSON)).build()).execute()) {
      assertEquals(405, r.code());
    }
    try (Response r = get("/api/nothing-here")) {
      assertEquals(404, r.code());
      assertTrue(r.body().string().contains("\"error\""));
    }
    assertTrue(source.actions.isEmpty(), source.actions.toString());
  }

  @Test
  void tokensDecideWhoMayReadAndWhoMayAct() throws IOException {
    start(TOKEN, READ);
    try (Response r = get("/api/colony")) {
      assertEquals(401, r.code());
    }
    try (Response r = get("/api/colony", "Authorization", "Bearer wrong-token-000000000")) {
      assertEquals(401, r.code());
    }
    assertEquals("read", json(get("/api/colony", "Authorization", "Bearer " + READ)).get("role").asText());
    try (Response r = post("/api/ants/alpha/pause", RequestBody.create("{}", JSON), "Authorization", "Bearer " + READ)) {
      assertEquals(403, r.code());
    }
    try (Response r = post("/api/ants/alpha/pause", RequestBody.create("{}", JSON), "Authorization", "Bearer " + TOKEN,
        "X-Colony-Operator", "Grace")) {
      assertEquals(200, r.code());
    }
    assertEquals(List.of("alpha pause by Grace"), source.actions);
    try (Response r = get("/")) {
      assertEquals(303, r.code());
      assertEquals("/login", r.header("Location"));
    }
  }

  @Test
  void theLoginFormSetsASignedStrictCookie() throws IOException {
    start(TOKEN, READ);
    try (Response r = post("/login", new FormBody.Builder().add("token", "nope").add("name", "Eve").build())) {
      assertEquals(303, r.code());
      assertTrue(r.header("Location").startsWith("/login"));
      assertNull(r.header("Set-Cookie"));
    }
    String cookie;
    try (Response r = post("/login", new FormBody.Builder().add("token", TOKEN).add("name", "Linus").build())) {
      assertEquals(303, r.code());
      assertEquals("/", r.header("Location"));
      cookie = r.header("Set-Cookie");
    }
    assertNotNull(cookie);
    assertTrue(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), cookie);
    String pair = cookie.split(";")[0];
    JsonNode me = json(get("/api/colony", "Cookie", pair));
    assertEquals("Linus", me.get("operator").asText());
    assertEquals("operator", me.get("role").asText());
    String forged = pair.substring(0, pair.length() - 3) + "abc";
    try (Response r = get("/api/colony", "Cookie", forged)) {
      assertEquals(401, r.code());
    }
    try (Response r = post("/login", new FormBody.Builder().add("token", TOKEN).build(), "Origin", "http://evil.example")) {
      assertEquals(403, r.code());
    }
  }

  @Test
  void noSecretLeavesTheConsole() throws IOException {
    start(null, null);
    source.put(FakeSource.row("alpha", 2, "curl -H 'x-api-key: " + SECRET + "'"));
    source.addTurns("alpha", Turn.tool("Bash", "echo " + SECRET, "ok " + SECRET, false));
    for (String path : List.of("/api/ants/alpha", "/api/ants", "/api/ants/alpha/live")) {
      try (Response r = get(path)) {
        String body = r.body().string();
        assertEquals(200, r.code(), body);
        assertFalse(body.contains(SECRET), path + ": " + body);
        assertTrue(body.contains("${PAID_API_KEY}"), path + ": " + body);
      }
    }
  }

  @Test
  void pagesStaticFilesAndWebjarsAreServedSafely() throws IOException {
    start(null, null);
    try (Response r = get("/")) {
      assertEquals(200, r.code());
      assertTrue(r.body().string().contains("test overview"));
      assertEquals(ConsoleServer.CSP, r.header("Content-Security-Policy"));
    }
    try (Response r = get("/static/overview.html")) {
      assertEquals(200, r.code());
    }
    try (Response r = get("/static/..%2F..%2FConsoleServer.class")) {
      assertEquals(404, r.code());
    }
    try (Response r = get("/webjars/uplot/1.6.30/dist/uPlot.min.css")) {
      assertEquals(200, r.code());
      assertTrue(r.header("Content-Type").startsWith("text/css"));
    }
    // Sent as written (an HTTP client would resolve the dots before sending): nothing outside a webjar.
    for (String escape : new String[] {"/webjars/../META-INF/MANIFEST.MF", "/webjars/uplot/%2e%2e/%2e%2e/%2e%2e/META-INF/MANIFEST.MF",
        "/webjars/uplot/1.6.30/..%2F..%2F..%2F..%2FMETA-INF/MANIFEST.MF", "/static/..%2f..%2fConsoleServer.class"}) {
      String answer = raw(escape);
      assertTrue(!answer.startsWith("HTTP/1.1 200") && !answer.contains("Manifest-Version") && !answer.contains("CAFEBABE"),
          escape + " answered:\n" + answer);
    }
    try (Response r = get("/ants/bad$name")) {
      assertEquals(400, r.code());
    }
  }

  @Test
  void aPublicAddressWithoutATokenIsRefused() {
    var e = assertThrows(IllegalArgumentException.class, () -> ConsoleServer.start(
        ConsoleServer.Options.defaults().withBind("0.0.0.0", 0), source, secrets));
    assertTrue(e.getMessage().contains("without a token"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> ConsoleServer.start(
        ConsoleServer.Options.defaults().withBind("127.0.0.1", 0).withTokens(null, READ), source, secrets));
    assertThrows(IllegalArgumentException.class, () -> ConsoleServer.start(
        ConsoleServer.Options.defaults().withBind("0.0.0.0", 0).withTokens("short", null), source, secrets));
  }

  @Test
  void aPublicAddressWithATokenServes() throws IOException {
    source.put(FakeSource.row("alpha", 1, "x"));
    server = ConsoleServer.start(ConsoleServer.Options.defaults().withBind("0.0.0.0", 0).withTokens(TOKEN, null)
        .withTiming(Duration.ofMillis(400), Duration.ofSeconds(15)), source, secrets);
    try (Response r = get("/api/colony")) {
      assertEquals(401, r.code());
    }
    try (Response r = get("/api/colony", "Authorization", "Bearer " + TOKEN)) {
      assertEquals(200, r.code());
    }
  }
}
