package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * examples/tasks on the real dev server, with real workers as processes: two ants sharing the
 * pool {@code docs} take tasks added from the CLI, the console's API and a Slack slash command (the
 * test's fake Slack, over the real Socket Mode protocol and Bolt); workers are killed
 * with SIGKILL while tasks are being claimed and while a session runs; no task is lost and none is
 * worked by both ants. A re-queue's comment reaches the next session's prompt, and an approval
 * makes the task Done.
 */
@Timeout(value = 12, unit = TimeUnit.MINUTES)
class TasksIT {
  private static final Path EXAMPLE = Path.of("../examples/tasks").toAbsolutePath().normalize();
  private static final Duration LONG = Duration.ofSeconds(120);
  private static final Pattern URL = Pattern.compile("console on\\s+(http://\\S+)");
  private static final Pattern ADDED = Pattern.compile("^([a-z0-9]{6}) added", Pattern.MULTILINE);
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  private static final String WORK = "C0WORK001";
  private static final String DANA = "U0DANA001";

  private Cluster cluster;
  private dev.colony.fakes.FakeSlack slack;
  private final List<Process> processes = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (Process p : processes) {
      p.destroy();
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
    Cluster.closeAll(cluster, slack); // the cluster first: its workers still talk to the fake
  }

  @Test
  void twoAntsSharingAPoolTakeEveryTaskOnceAcrossWorkerKills() throws Exception {
    slack = new dev.colony.fakes.FakeSlack().channel(WORK, "work", true).user(DANA, "dana", false)
        .group("S0OPS0001", DANA);
    cluster = new Cluster(tmp, EXAMPLE).startServer("dev");
    cluster.colonyName = "tasks";
    // The example, with a Slack channel for both ants (operators: dana).
    Files.writeString(cluster.dir.resolve("colony.yaml"), Files.readString(cluster.dir.resolve("colony.yaml"))
        + "integrations:\n  slack:\n    bot_token: ${SLACK_BOT_TOKEN}\n    app_token: ${SLACK_APP_TOKEN}\n"
        + "    operators: [S0OPS0001]\n");
    for (String ant : List.of("ada", "bob")) { // a colony on Slack: every ant names its channel
      Path file = cluster.dir.resolve("ants/" + ant + ".yaml");
      Files.writeString(file, Files.readString(file) + "integrations:\n  slack:\n    channel: \"#work\"\n");
    }
    Files.writeString(cluster.dir.resolve(".env"), "WRITER_LINGER=6\nSLACK_BOT_TOKEN=" + dev.colony.fakes.FakeSlack.BOT_TOKEN
        + "\nSLACK_APP_TOKEN=" + dev.colony.fakes.FakeSlack.APP_TOKEN + "\nCOLONY_SLACK_API_URL=" + slack.apiUrl() + "\n");
    // The writers' sandboxes pass in only what their files grant: this test's knob too.
    for (String ant : List.of("ada", "bob")) {
      Files.writeString(cluster.dir.resolve("ants/" + ant + ".yaml"), "sandbox:\n  secrets: [WRITER_LINGER]\n",
          java.nio.file.StandardOpenOption.APPEND);
    }
    Cluster.WorkerProcess first = cluster.startWorker("w1");
    Cluster.WorkerProcess second = null;
    try {
      cluster.cli("start", cluster.dir.toString());
      Set<String> ids = new HashSet<>();
      for (int i = 1; i <= 6; i++) {
        ids.add(add("note " + i + " from the CLI", "--to", "pool:docs"));
      }
      // Kill the worker while the two ants claim their first tasks.
      eventually(LONG, ok(() -> count("in_progress") >= 1), () -> "no task was taken:\n" + board());
      Cluster.kill9(first);
      second = cluster.startWorker("w2");

      // The console's API adds more while the ants work.
      String url = console(cluster.logs.resolve("console.log"));
      for (int i = 1; i <= 3; i++) {
        HttpResponse<String> r = http(HttpRequest.newBuilder(URI.create(url + "/api/tasks"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of(
                "title", "note " + i + " from the console", "assignee", "pool:docs", "labels", List.of("docs"))))));
        assertTrue(r.statusCode() / 100 == 2, r.statusCode() + " " + r.body());
        ids.add(JSON.readTree(r.body()).path("task").path("id").asText());
      }
      // A human in Slack adds two (in the ants' channel, for the pool).
      eventually(LONG, () -> slack.openSockets() == 1, () -> "no Slack connection");
      for (int i = 1; i <= 2; i++) {
        slack.slash(WORK, DANA, "task add note " + i + " from slack to:pool:docs label:docs");
      }
      eventually(LONG, ok(() -> tasks().stream().filter(t -> t.path("title").asText().contains("from slack")).count() == 2),
          () -> "the Slack tasks never reached the board: " + slack.texts(WORK) + "\n" + board());
      for (JsonNode t : tasks()) {
        ids.add(t.path("id").asText());
      }
      assertEquals(11, ids.size(), "eleven distinct tasks: " + ids);

      // Kill the next worker inside a session (eleven sessions of six seconds on two ants: some run now).
      eventually(LONG, ok(() -> count("in_progress") >= 1), () -> "no session ran:\n" + board());
      Cluster.kill9(second);
      second = cluster.startWorker("w3");

      eventually(Duration.ofSeconds(240), ok(() -> count("in_review") == 11), () -> "not every task reached review:\n" + board());
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + cluster.diagnostics(), e);
    }
    // Every task was worked by exactly one ant, and both ants worked.
    Map<String, Set<String>> antsByTask = new HashMap<>();
    for (String line : Cluster.read(cluster.dir.resolve("logs/tasks.log")).lines().toList()) {
      String[] w = line.split(" ");
      antsByTask.computeIfAbsent(w[1], k -> new HashSet<>()).add(w[0]);
    }
    assertEquals(11, antsByTask.size(), "sessions ran on: " + antsByTask);
    antsByTask.forEach((task, ants) -> assertEquals(1, ants.size(), task + " was worked by " + ants));
    Set<String> workers = new HashSet<>();
    for (JsonNode t : tasks()) {
      workers.add(t.path("worker").asText());
      assertEquals(antsByTask.get(t.path("id").asText()), Set.of(t.path("worker").asText()), t.toString());
      JsonNode work = t.path("work");
      assertTrue(work.path("commits").size() >= 1, "no commit recorded for " + t);
      assertTrue(work.path("linesAdded").asLong() > 0, t.toString());
      assertTrue(t.path("sessions").get(t.path("sessions").size() - 1).path("summary").asText().startsWith("wrote notes/"),
          t.toString());
    }
    assertEquals(Set.of("ada", "bob"), workers, "both ants of the pool worked");
  }

  @Test
  void aRequeuedTasksCommentReachesTheNextPromptAndApprovalMakesItDone() throws Exception {
    cluster = new Cluster(tmp, EXAMPLE).startServer("dev");
    cluster.colonyName = "tasks";
    cluster.startWorker("w1");
    try {
      cluster.cli("start", cluster.dir.toString());
      String id = add("Write the install guide", "--to", "ada", "--body", "Two paragraphs, plain words.");
      eventually(LONG, ok(() -> state(id).equals("in_review")), () -> "never reached review:\n" + board());
      String requeued = cluster.cli("task", "requeue", "--dir", cluster.dir.toString(), id,
          "--comment", "add a troubleshooting section");
      assertTrue(requeued.contains(id), requeued);
      eventually(LONG, () -> Cluster.read(cluster.dir.resolve("logs/tasks.log")).lines()
          .anyMatch(l -> l.startsWith("ada " + id) && l.contains("add a troubleshooting section")),
          () -> "the comment never reached a prompt:\n" + Cluster.read(cluster.dir.resolve("logs/tasks.log")));
      eventually(LONG, ok(() -> state(id).equals("in_review")), () -> "never back in review:\n" + board());
      cluster.cli("task", "approve", "--dir", cluster.dir.toString(), id);
      eventually(LONG, ok(() -> state(id).equals("done")), () -> "not done:\n" + board());

      // A task labelled fail fails its sessions: after max_tries (2) it is Blocked, with the reason.
      String bad = add("This one cannot be written", "--to", "bob", "--label", "fail");
      eventually(LONG, ok(() -> state(bad).equals("blocked")), () -> "never blocked:\n" + board());
      JsonNode blocked = show(bad);
      assertTrue(blocked.path("reason").asText().contains("failed 2 sessions"), blocked.toString());

      // Mistakes get one line and a non-zero exit.
      Cluster.CliRun unknown = cluster.cliRun("task", "approve", "--dir", cluster.dir.toString(), "zzzzzz");
      assertNotEquals(0, unknown.code());
      assertTrue(unknown.out().contains("zzzzzz"), unknown.out());
      Cluster.CliRun notInReview = cluster.cliRun("task", "approve", "--dir", cluster.dir.toString(), bad);
      assertNotEquals(0, notInReview.code());
      assertTrue(!notInReview.out().contains("\tat ") && !notInReview.out().contains("Exception"), notInReview.out());
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + cluster.diagnostics(), e);
    }
  }

  /**
   * What a new user does (the "done when"): adds a task in the console's board, watches an
   * ant take it and move it to In Review, reads what it did in the drawer, and approves it to Done.
   * Real console, worker and dev server; headless Chromium.
   */
  @Test
  void aTaskAddedInTheConsoleIsTakenReviewedInItsDrawerAndApprovedToDone() throws Exception {
    cluster = new Cluster(tmp, EXAMPLE).startServer("dev");
    cluster.colonyName = "tasks";
    cluster.startWorker("w1");
    WebDriver browser = null;
    try {
      cluster.cli("start", cluster.dir.toString());
      String url = console(cluster.logs.resolve("console.log"));
      browser = Chromium.start(tmp, 1400, 1000);
      WebDriver b = browser;
      browser.get(url + "/board");
      eventually(LONG, () -> !b.findElements(By.id("addToggle")).isEmpty(), () -> "no board page");
      browser.findElement(By.id("addToggle")).click();
      browser.findElement(By.id("addTitle")).sendKeys("Write the quick start");
      browser.findElement(By.id("addLabels")).sendKeys("docs");
      browser.findElement(By.id("addSubmit")).click();
      String[] id = new String[1];
      eventually(LONG, () -> {
        Object found = ((JavascriptExecutor) b).executeScript("for (const c of document.querySelectorAll"
            + "('.task[data-id]')) if (c.textContent.includes('Write the quick start')) return c.dataset.id; return null;");
        id[0] = found == null ? null : found.toString();
        return id[0] != null;
      }, () -> "the added task never showed:\n" + b.findElement(By.tagName("body")).getText());
      // An ant takes it and hands it over: the open page follows without a reload.
      eventually(LONG, () -> columnOf(b, id[0]).equals("in_review"),
          () -> id[0] + " is in '" + columnOf(b, id[0]) + "':\n" + board());
      Chromium.screenshot(browser, "tasks", "in-review");
      // What it did, in the drawer: the ant's summary and its commit.
      browser.findElement(By.cssSelector(".task[data-id='" + id[0] + "'] .title")).click();
      eventually(LONG, () -> {
        String d = b.findElement(By.id("drawer")).getText();
        return d.contains("wrote notes/" + id[0] + ".md") && d.contains("notes: Write the quick start");
      }, () -> "the drawer does not show the work:\n" + b.findElement(By.id("drawer")).getText());
      Chromium.screenshot(browser, "tasks", "drawer");
      b.findElements(By.xpath("//aside[@id='drawer']//button[normalize-space()='Approve']"))
          .stream().filter(WebElement::isDisplayed).findFirst()
          .orElseThrow(() -> new AssertionError("no Approve in the drawer")).click();
      eventually(LONG, ok(() -> state(id[0]).equals("done")), () -> "not done:\n" + board());
      eventually(LONG, () -> columnOf(b, id[0]).equals("done"), () -> "the page does not show it Done:\n" + board());
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + cluster.diagnostics(), e);
    } finally {
      if (browser != null) {
        browser.quit();
      }
    }
  }

  // ---- helpers ----

  /** The state of the board column that shows task {@code id} in the page, or "" when none does. */
  private static String columnOf(WebDriver browser, String id) {
    try {
      Object s = ((JavascriptExecutor) browser).executeScript("const c = document.querySelector("
          + "`.task[data-id='${arguments[0]}']`); return c ? c.closest('.column').dataset.state : '';", id);
      return String.valueOf(s);
    } catch (RuntimeException e) {
      return "";
    }
  }

  /** A condition for {@code eventually} that may throw (a CLI call while a worker restarts): false then. */
  private static java.util.function.BooleanSupplier ok(java.util.concurrent.Callable<Boolean> condition) {
    return () -> {
      try {
        return condition.call();
      } catch (Exception e) {
        return false;
      }
    };
  }

  private String add(String title, String... options) throws Exception {
    List<String> args = new ArrayList<>(List.of("task", "add", "--dir", cluster.dir.toString(), title));
    args.addAll(List.of(options));
    String out = cluster.cli(args.toArray(String[]::new));
    Matcher m = ADDED.matcher(out);
    assertTrue(m.find(), "no id in: " + out);
    return m.group(1);
  }

  private List<JsonNode> tasks() throws Exception {
    JsonNode root = JSON.readTree(cluster.cli("task", "list", "--dir", cluster.dir.toString(), "--json"));
    List<JsonNode> out = new ArrayList<>();
    root.path("tasks").forEach(out::add);
    return out;
  }

  private long count(String state) throws Exception {
    return tasks().stream().filter(t -> t.path("state").asText().equals(state)).count();
  }

  private JsonNode show(String id) throws Exception {
    return JSON.readTree(cluster.cli("task", "show", "--dir", cluster.dir.toString(), id, "--json"));
  }

  private String state(String id) throws Exception {
    return show(id).path("state").asText();
  }

  private String board() {
    try {
      return cluster.cli("task", "list", "--dir", cluster.dir.toString());
    } catch (Exception e) {
      return "(no board: " + e.getMessage() + ")";
    }
  }

  private String console(Path log) throws Exception {
    List<String> args = List.of("console", cluster.dir.toString(), "--address", cluster.address, "--port", "0");
    Process p = new ProcessBuilder(Cluster.jvm(args.toArray(String[]::new))).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    processes.add(p);
    eventually(LONG, () -> {
      if (!p.isAlive()) {
        throw new AssertionError("colony console exited: " + Cluster.read(log));
      }
      return URL.matcher(Cluster.read(log)).find();
    }, () -> "colony console printed no URL: " + Cluster.read(log));
    Matcher m = URL.matcher(Cluster.read(log));
    assertTrue(m.find());
    return m.group(1).replaceAll("/$", "");
  }

  private static HttpResponse<String> http(HttpRequest.Builder request) throws Exception {
    return HttpClient.newHttpClient().send(request.timeout(Duration.ofSeconds(20)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
