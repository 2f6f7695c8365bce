package dev.colony.console;

import dev.colony.client.FakeSource;
import dev.colony.board.FakeTaskBoard;
import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colony.secrets.Secrets;
import dev.colony.task.Assignee;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskState;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import okhttp3.Call;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The board's API over HTTP against an in-memory board: every route, its refusals, the read-only token, hostile text, live events. */
@Timeout(60)
class TaskApiTest {
  static final String TOKEN = "operator-token-0123456789";
  static final String READ = "reader-token-0123456789";
  static final MediaType JSON = MediaType.get("application/json");
  static final String SECRET = "sk-live-9f8e7d6c5b4a";
  static final String HOSTILE = "<img src=x onerror=alert(1)><script>alert('x')</script>\u001b[31mred\u001b[0m \"quoted\" & "
      + SECRET;

  final FakeSource source = new FakeSource();
  final FakeTaskBoard board = new FakeTaskBoard();
  final Secrets secrets = new Secrets();
  final OkHttpClient http = new OkHttpClient.Builder().followRedirects(false).readTimeout(Duration.ofSeconds(20)).build();
  final OkHttpClient sse = new OkHttpClient.Builder().readTimeout(Duration.ZERO).build();
  final List<Stream> streams = new CopyOnWriteArrayList<>();
  ConsoleServer server;

  void start(String token, String readToken) {
    source.put(FakeSource.row("alpha", 1, "session 3 running"));
    secrets.register("PAID_API_KEY", SECRET);
    server = ConsoleServer.start(ConsoleServer.Options.defaults().withBind("127.0.0.1", 0).withTokens(token, readToken)
        .withTiming(Duration.ofMillis(50), Duration.ofMillis(300)), source, board, secrets);
  }

  @AfterEach
  void stop() {
    streams.forEach(x -> x.call.cancel());
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
      return Views.MAPPER.readTree(r.body().string());
    }
  }

  /** The status and the error of a refused request. */
  static String refused(Response r) throws IOException {
    try (r) {
      return r.code() + " " + Views.MAPPER.readTree(r.body().string()).path("error").asText();
    }
  }

  @Test
  void theBoardListsEveryTaskWithItsCardAndTheAntGoneBadge() throws IOException {
    start(null, null);
    board.put(FakeTaskBoard.card("todo1", "Write the docs", TaskState.TODO, null));
    board.put(FakeTaskBoard.card("work1", "Fix the login", TaskState.IN_PROGRESS, "alpha"));
    board.put(FakeTaskBoard.card("lost1", "Port the CLI", TaskState.IN_PROGRESS, "ghost"));
    board.put(FakeTaskBoard.reviewed("rev1", "Review me", "body", "alpha"));
    JsonNode j = json(get("/api/tasks"));
    assertEquals(6, j.get("columns").size());
    assertEquals("backlog", j.get("columns").get(0).get("state").asText());
    assertEquals("Blocked", j.get("columns").get(5).get("label").asText());
    assertEquals(4, j.get("tasks").size());
    assertFalse(j.get("more").asBoolean());
    JsonNode lost = find(j, "lost1");
    assertEquals("in_progress", lost.get("state").asText());
    assertEquals("ghost", lost.get("worker").asText());
    assertTrue(lost.get("antGone").asBoolean(), "ghost is not a running ant");
    assertFalse(find(j, "work1").get("antGone").asBoolean(), "alpha runs");
    JsonNode rev = find(j, "rev1");
    assertEquals("high", rev.get("priority").asText());
    assertEquals("pool:backend", rev.get("assignee").asText());
    assertEquals(List.of("backend", "auth"), List.of(rev.get("labels").get(0).asText(), rev.get("labels").get(1).asText()));
    assertEquals("https://github.com/acme/web/issues/12", rev.get("issueUrl").asText());
    assertTrue(rev.get("createdAt").asLong() > 0 && rev.get("stateSince").asLong() > 0);
    assertEquals(2, rev.get("commits").asInt());
    assertTrue(rev.path("body").isMissingNode(), "the board's cards carry no body (the drawer reads it)");
    // filters: states (a list), worker, limit
    JsonNode two = json(get("/api/tasks?state=in_progress,in_review&worker=alpha"));
    assertEquals(2, two.get("tasks").size());
    JsonNode one = json(get("/api/tasks?limit=1"));
    assertEquals(1, one.get("tasks").size());
    assertTrue(one.get("more").asBoolean());
    // "nobody" is nobody (not a failure); a bad label is the caller's error, named
    try (Response nobody = get("/api/tasks?assignee=nobody")) {
      assertEquals(200, nobody.code());
    }
    String badLabel = refused(get("/api/tasks?label=a%20b"));
    assertTrue(badLabel.startsWith("400 ") && badLabel.contains("is not a label"), badLabel);
  }

  private static JsonNode find(JsonNode board, String id) {
    for (JsonNode t : board.get("tasks")) {
      if (t.get("id").asText().equals(id)) {
        return t;
      }
    }
    throw new AssertionError("no task " + id + " in " + board);
  }

  @Test
  void theDrawerHasBodyCommentsWorkSessionsAndLog() throws IOException {
    start(null, null);
    board.put(FakeTaskBoard.reviewed("rev1", "Review me", "line one\nline two", "alpha"));
    JsonNode d = json(get("/api/tasks/rev1"));
    assertEquals("line one\nline two", d.get("body").asText());
    assertEquals("Please keep the old endpoint.", d.get("commentList").get(0).get("text").asText());
    assertEquals("colony/alpha", d.get("work").get("branch").asText());
    assertEquals("Fix the login form", d.get("work").get("commits").get(0).get("subject").asText());
    assertEquals(42, d.get("work").get("linesAdded").asInt());
    assertEquals(7, d.get("work").get("linesRemoved").asInt());
    assertEquals(3, d.get("work").get("files").size());
    assertEquals("/ants/alpha", d.get("sessions").get(0).get("antUrl").asText());
    assertEquals(14, d.get("sessions").get(0).get("session").asInt());
    assertTrue(d.get("log").size() >= 3);
    assertEquals("404 no task 'nope' in colony 'hello'", refused(get("/api/tasks/nope")));
    assertTrue(refused(get("/api/tasks/BAD%20ID")).startsWith("400 not a task id"));
  }

  @Test
  void addingATaskValidatesEveryFieldAndSaysWhatIsWrong() throws IOException {
    start(null, null);
    JsonNode ok = json(post("/api/tasks", "{\"title\": \"  Write the docs \", \"body\": \"a\\nb\", \"priority\": \"high\","
        + " \"labels\": \"docs, backend\", \"assignee\": \"pool:docs\", \"backlog\": true}", "X-Colony-Operator", "alice"));
    assertTrue(ok.get("ok").asBoolean());
    String id = ok.get("task").get("id").asText();
    TaskCard c = board.get(id);
    assertEquals("Write the docs", c.title());
    assertEquals("a\nb", c.body());
    assertEquals(TaskState.BACKLOG, c.state());
    assertEquals(List.of("docs", "backend"), c.labels());
    assertEquals(Assignee.pool("docs"), c.assignee());
    assertEquals("added task " + id + " to Backlog", ok.get("message").asText());
    assertEquals("add " + id + " by @alice: Write the docs", board.changes.get(0));
    JsonNode todo = json(post("/api/tasks", "{\"title\": \"Next\"}"));
    assertEquals("todo", todo.get("task").get("state").asText());
    assertEquals("normal", todo.get("task").get("priority").asText());

    assertEquals("400 a task needs a title: send {\"title\": \"...\"}", refused(post("/api/tasks", "{\"title\": \"  \"}")));
    assertEquals("400 title is over 200 characters", refused(post("/api/tasks", "{\"title\": \"" + "x".repeat(201) + "\"}")));
    assertEquals("400 body is over 20000 characters",
        refused(post("/api/tasks", "{\"title\": \"t\", \"body\": \"" + "x".repeat(20_001) + "\"}")));
    assertEquals("400 unknown priority 'urgentest' (high, normal, low)",
        refused(post("/api/tasks", "{\"title\": \"t\", \"priority\": \"urgentest\"}")));
    assertTrue(refused(post("/api/tasks", "{\"title\": \"t\", \"labels\": [\"<b>\"]}")).startsWith("400 label '?b?' is not a label"));
    assertEquals("400 at most 10 labels", refused(post("/api/tasks",
        "{\"title\": \"t\", \"labels\": \"a,b,c,d,e,f,g,h,i,j,k\"}")));
    assertEquals("400 labels must be strings", refused(post("/api/tasks", "{\"title\": \"t\", \"labels\": [1]}")));
    assertTrue(refused(post("/api/tasks", "{\"title\": \"t\", \"assignee\": \"no spaces\"}")).startsWith("400 'no spaces' is not a name for an ant"));
    assertEquals("400 backlog must be true or false", refused(post("/api/tasks", "{\"title\": \"t\", \"backlog\": \"yes\"}")));
    assertEquals("400 title must be a string", refused(post("/api/tasks", "{\"title\": 5}")));
    assertEquals("400 the body is not JSON", refused(post("/api/tasks", "{title")));
    assertEquals("400 the body must be a JSON object", refused(post("/api/tasks", "[]")));
    assertEquals(2, board.tasks.size(), "no refused request added a task");
  }

  @Test
  void everyChangeGoesToTheBoardAndItsRefusalsAreClearErrors() throws IOException {
    start(null, null);
    board.put(FakeTaskBoard.reviewed("rev1", "Review me", "body", "alpha"));
    board.put(FakeTaskBoard.card("todo1", "Write the docs", TaskState.TODO, null));
    // approve: only In Review (the board's refusal is a 409 with its sentence)
    assertEquals("409 task todo1 is To Do, not In Review: only a task in review can be approved", refused(post("/api/tasks/todo1/approve", "{}")));
    JsonNode a = json(post("/api/tasks/rev1/approve", "{\"text\": \"ship it\"}", "X-Colony-Operator", "alice"));
    assertEquals("approved rev1: Done", a.get("message").asText());
    assertEquals("done", a.get("task").get("state").asText());
    assertEquals("approve rev1 by @alice: ship it", board.changes.getLast());
    // requeue: a comment is required
    assertEquals("400 a re-queue needs a comment for the next session: send {\"text\": \"...\"}",
        refused(post("/api/tasks/rev1/requeue", "{\"text\": \" \"}")));
    board.put(FakeTaskBoard.reviewed("rev2", "Again", "body", "alpha"));
    JsonNode rq = json(post("/api/tasks/rev2/requeue", "{\"text\": \"the test fails\", \"assignee\": \"beta\"}"));
    assertEquals("todo", rq.get("task").get("state").asText());
    assertEquals("beta", rq.get("task").get("assignee").asText());
    assertEquals("requeue rev2 by @local to beta: the test fails", board.changes.getLast());
    // move: a known column; Blocked needs a reason
    assertEquals("400 move where? send {\"to\": \"backlog|todo|in_progress|in_review|done|blocked\"}",
        refused(post("/api/tasks/todo1/move", "{\"to\": \"sideways\"}")));
    assertTrue(refused(post("/api/tasks/todo1/move", "{\"to\": \"blocked\"}")).startsWith("400 a move to Blocked needs a reason"));
    assertEquals("moved todo1 to Backlog", json(post("/api/tasks/todo1/move", "{\"to\": \"Backlog\"}")).get("message").asText());
    JsonNode blocked = json(post("/api/tasks/todo1/move", "{\"to\": \"blocked\", \"text\": \"needs a key\"}"));
    assertEquals("needs a key", blocked.get("task").get("reason").asText());
    // assign: required, checked; "" is nobody
    assertTrue(refused(post("/api/tasks/todo1/assign", "{}")).startsWith("400 assign to whom?"));
    assertTrue(refused(post("/api/tasks/todo1/assign", "{\"assignee\": \"pool:<x>\"}")).startsWith("400 '<x>' is not a name for a pool"));
    assertEquals("assigned todo1 to @bob", json(post("/api/tasks/todo1/assign", "{\"assignee\": \"@bob\"}")).get("message").asText());
    assertEquals("unassigned todo1", json(post("/api/tasks/todo1/assign", "{\"assignee\": \"\"}")).get("message").asText());
    assertNull(board.get("todo1").assignee());
    // comment: not empty, bounded
    assertEquals("400 the comment is empty: send {\"text\": \"...\"}", refused(post("/api/tasks/todo1/comment", "{}")));
    assertEquals("400 text is over 4000 characters",
        refused(post("/api/tasks/todo1/comment", "{\"text\": \"" + "x".repeat(4001) + "\"}")));
    assertEquals("commented on todo1", json(post("/api/tasks/todo1/comment", "{\"text\": \"hi\"}")).get("message").asText());
    // unknown action, bad id, no such task
    assertEquals("400 unknown action 'delete' (approve, requeue, move, assign, comment)",
        refused(post("/api/tasks/todo1/delete", "{}")));
    assertTrue(refused(post("/api/tasks/..%2Fx/approve", "{}")).startsWith("400 not a task id"));
    assertEquals("409 there is no task nope in colony hello", refused(post("/api/tasks/nope/comment", "{\"text\": \"x\"}")));
  }

  @Test
  void aReadOnlyTokenReadsTheBoardButCannotChangeIt() throws IOException {
    start(TOKEN, READ);
    board.put(FakeTaskBoard.reviewed("rev1", "Review me", "body", "alpha"));
    String bearer = "Bearer " + READ;
    assertEquals(200, get("/api/tasks", "Authorization", bearer).code());
    assertEquals(200, get("/api/tasks/rev1", "Authorization", bearer).code());
    assertEquals("403 a read-only token may not act", refused(post("/api/tasks", "{\"title\": \"t\"}", "Authorization", bearer)));
    for (String action : TaskRoutes.ACTIONS) {
      assertEquals("403 a read-only token may not act",
          refused(post("/api/tasks/rev1/" + action, "{\"text\": \"x\", \"to\": \"done\", \"assignee\": \"\"}", "Authorization", bearer)));
    }
    assertEquals(401, get("/api/tasks").code(), "no token: no board");
    assertEquals(1, board.tasks.size());
    assertTrue(board.changes.isEmpty(), "nothing changed: " + board.changes);
    // the operator's token acts
    assertEquals(200, post("/api/tasks/rev1/approve", "{}", "Authorization", "Bearer " + TOKEN).code());
  }

  @Test
  void theGuardHoldsForTheBoardsPostsToo() throws IOException {
    start(null, null);
    try (Response r = http.newCall(new Request.Builder().url(server.url() + "/api/tasks")
        .post(RequestBody.create("title=x", MediaType.get("application/x-www-form-urlencoded"))).build()).execute()) {
      assertEquals(415, r.code());
    }
    assertEquals("403 cross-site requests are refused",
        refused(post("/api/tasks", "{\"title\": \"t\"}", "Origin", "http://evil.example")));
    assertEquals("403 cross-site requests are refused",
        refused(post("/api/tasks", "{\"title\": \"t\"}", "Sec-Fetch-Site", "cross-site")));
    assertEquals(413, post("/api/tasks", "{\"title\": \"" + "x".repeat(ConsoleServer.MAX_BODY) + "\"}").code());
    assertTrue(board.tasks.isEmpty());
  }

  @Test
  void hostileTextStaysInertJsonAndSecretsAreRedacted() throws IOException {
    start(null, null);
    JsonNode ok = json(post("/api/tasks", Views.MAPPER.writeValueAsString(Map.of("title", "t " + HOSTILE.substring(0, 60),
        "body", HOSTILE))));
    String id = ok.get("task").get("id").asText();
    try (Response r = get("/api/tasks/" + id)) {
      assertTrue(r.header("Content-Type").startsWith("application/json"));
      assertEquals("nosniff", r.header("X-Content-Type-Options"));
      String raw = r.body().string();
      assertFalse(raw.contains(SECRET), "the secret is redacted: " + raw);
      assertTrue(raw.contains("${PAID_API_KEY}"), raw);
      JsonNode d = Views.MAPPER.readTree(raw);
      // the text comes back as it was written (the page shows it as text), only the secret redacted
      assertEquals(HOSTILE.replace(SECRET, "${PAID_API_KEY}"), d.get("body").asText());
    }
    // an action is a POST: a GET of it is no route
    assertEquals(404, get("/api/tasks/" + id + "/approve").code());
  }

  @Test
  void aConsoleWithoutABoardSaysSo() throws IOException {
    source.put(FakeSource.row("alpha", 1, "x"));
    server = ConsoleServer.start(ConsoleServer.Options.defaults().withBind("127.0.0.1", 0), source, secrets);
    assertEquals("404 this console has no task board", refused(get("/api/tasks")));
    assertEquals("404 this console has no task board", refused(post("/api/tasks", "{\"title\": \"t\"}")));
  }

  /** One open event stream, its lines collected by a thread of its own. */
  final class Stream {
    final List<String> lines = new CopyOnWriteArrayList<>();
    final Call call;

    Stream(String path) {
      call = sse.newCall(new Request.Builder().url(server.url() + path).header("Accept", "text/event-stream").build());
      Thread.ofVirtual().start(() -> {
        try (Response r = call.execute();
            BufferedReader in = new BufferedReader(new InputStreamReader(r.body().byteStream(), StandardCharsets.UTF_8))) {
          for (String line; (line = in.readLine()) != null; ) {
            lines.add(line);
          }
        } catch (Exception closed) {
          // cancelled
        }
      });
      streams.add(this);
    }

    /** The data of the {@code task} events seen so far. */
    List<String> tasks() {
      List<String> out = new java.util.ArrayList<>();
      for (int i = 0; i + 1 < lines.size(); i++) {
        if (lines.get(i).equals("event:task") || lines.get(i).equals("event: task")) {
          out.add(lines.get(i + 1).replaceFirst("^data: ?", ""));
        }
      }
      return out;
    }
  }

  @Test
  void aChangeOnTheBoardReachesAnOpenBoardPageAndOnlyWhileOneIsOpen() throws Exception {
    start(null, null);
    board.put(FakeTaskBoard.card("todo1", "Write the docs", TaskState.TODO, null));
    // A page that does not show tasks: the board is never asked (a closed page is noticed at the next
    // keep-alive, here every 300 ms).
    new Stream("/api/events");
    eventually(() -> source.changedSinceCalls.get() >= 3, "the ants' poller runs");
    assertEquals(0, board.listCalls.get(), "no page shows tasks: the board is not polled");
    Stream page = new Stream("/api/events?tasks=1");
    eventually(() -> board.listCalls.get() >= 2, "the board is polled while a board page is open");
    board.put(FakeTaskBoard.card("lost1", "Port " + HOSTILE, TaskState.IN_PROGRESS, "ghost"));
    eventually(Duration.ofSeconds(10), () -> page.tasks().stream().anyMatch(e -> e.contains("\"id\":\"lost1\"")),
        () -> "the change was pushed: " + page.lines);
    String e = page.tasks().stream().filter(x -> x.contains("\"id\":\"lost1\"")).findFirst().orElseThrow();
    JsonNode t = Views.MAPPER.readTree(e);
    assertTrue(t.get("antGone").asBoolean(), e);
    assertFalse(e.contains(SECRET), e);
    assertEquals("Port " + HOSTILE.replace(SECRET, "${PAID_API_KEY}"), t.get("title").asText());
    long polls = board.listCalls.get();
    eventually(() -> board.listCalls.get() >= polls + 3, "more polls");
    assertEquals(1, page.tasks().stream().filter(x -> x.contains("\"id\":\"lost1\"")).count(), "one push per change");
    page.call.cancel();
    eventually(() -> viewers() == 1, "the board page is forgotten");
    long after = board.listCalls.get();
    long ants = source.changedSinceCalls.get();
    eventually(() -> source.changedSinceCalls.get() >= ants + 3, "the ants' poller goes on");
    assertTrue(board.listCalls.get() <= after + 1, "no board polls with no board page open");
  }

  @Test
  void aBurstOfChangesIsOneEventAndThePageReadsTheBoardAgain() throws Exception {
    start(null, null);
    Stream page = new Stream("/api/events?tasks=1");
    eventually(() -> board.listCalls.get() >= 2, "the board is polled");
    List<TaskCard> many = new java.util.ArrayList<>();
    for (int i = 0; i < LiveHub.TASK_BURST + 50; i++) {
      many.add(FakeTaskBoard.card("bulk" + i, "Bulk " + i, TaskState.TODO, null));
    }
    board.putAll(many);
    eventually(Duration.ofSeconds(10), () -> page.lines.stream().anyMatch(l -> l.contains("\"changed\":" + many.size())),
        () -> "one tasks event: " + page.lines);
    assertTrue(page.tasks().isEmpty(), "no task pushed one by one: " + page.tasks().size());
  }

  private long viewers() {
    try (Response r = http.newCall(new Request.Builder().url(server.url() + "/api/metrics").build()).execute()) {
      return Views.MAPPER.readTree(r.body().string()).get("viewers").asLong();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
