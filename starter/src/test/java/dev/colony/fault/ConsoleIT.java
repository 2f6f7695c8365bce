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
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The Colony console as a user meets it, in headless Chromium against the real dev server and a
 * real worker (separate processes): the URL {@code colony dev examples/hello} prints, steering
 * from the page, a change typed in a terminal reaching the open page without a reload, the inbox
 * answering a confirmation, costs across a worker restart, hostile text, and tokens beyond
 * loopback. Screenshots of every page go to {@code target/console-*.png}.
 */
@Timeout(value = 12, unit = TimeUnit.MINUTES)
class ConsoleIT {
  private static final Duration LONG = Duration.ofSeconds(90);
  /** How long a change may take to show on an open page here (the 1 s figure is measured by bench/console). */
  private static final Duration LIVE = Duration.ofSeconds(10);
  private static final Pattern URL = Pattern.compile("(?:Console:|console on)\\s+(http://\\S+)");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  private Cluster cluster;
  private WebDriver browser;
  private final List<Process> processes = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    if (browser != null) {
      browser.quit();
    }
    for (Process p : processes) {
      p.destroy();
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private void shot(String name) throws Exception {
    Chromium.screenshot(browser, "console", name);
  }

  private String text() {
    return browser.findElement(By.tagName("body")).getText();
  }

  private void awaitText(Duration within, String text) throws InterruptedException {
    eventually(within, () -> text().contains(text), () -> "the page never said \"" + text + "\":\n" + text());
  }

  private WebElement button(String label) {
    return browser.findElements(By.xpath("//button[normalize-space()='" + label + "']")).stream()
        .filter(WebElement::isDisplayed).findFirst()
        .orElseThrow(() -> new AssertionError("no visible button '" + label + "' on\n" + text()));
  }

  /** A marker in the page's JavaScript state: it survives live updates and dies with a reload. */
  private void markPage() {
    ((JavascriptExecutor) browser).executeScript("window.__colonyMarker = 42;");
  }

  private void assertNotReloaded() {
    Object marker = ((JavascriptExecutor) browser).executeScript("return window.__colonyMarker;");
    assertEquals(42L, marker, "the page was reloaded");
  }

  private void assertNoAlert() {
    try {
      String alert = browser.switchTo().alert().getText();
      throw new AssertionError("a script ran in the page: alert(" + alert + ")");
    } catch (NoAlertPresentException expected) {
      // nothing ran
    }
  }

  /** {@code colony console DIR} as a process; returns its URL once it serves. */
  private String console(Path log, String... extra) throws Exception {
    Process p = consoleProcess(log, extra);
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

  private Process consoleProcess(Path log, String... extra) throws Exception {
    List<String> args = new ArrayList<>(List.of("console", cluster.dir.toString(), "--address", cluster.address));
    args.addAll(List.of(extra));
    return new ProcessBuilder(Cluster.jvm(args.toArray(String[]::new))).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
  }

  private static HttpResponse<String> http(HttpRequest.Builder request) throws Exception {
    return HttpClient.newHttpClient().send(request.timeout(Duration.ofSeconds(20)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theUrlColonyDevPrintsShowsBothAntsAndSteersThemLive() throws Exception {
    cluster = new Cluster(tmp.resolve("hello"), Path.of("../examples/hello").toAbsolutePath());
    cluster.colonyName = "hello";
    // A checkout where examples/hello ran before holds its state: this test starts afresh.
    deleteTree(cluster.dir.resolve(".colony"));
    Path log = cluster.logs.resolve("dev.log");
    int consolePort = Cluster.freePort();
    ProcessBuilder pb = new ProcessBuilder(Cluster.jvm("dev", cluster.dir.toString(), "--port",
        Integer.toString(cluster.port), "--ui-port", Integer.toString(cluster.uiPort), "--console-port",
        Integer.toString(consolePort))).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().put("COLONY_TEMPORAL_CLI", Cluster.temporalCli());
    Process dev = pb.start();
    processes.add(dev);
    eventually(LONG, () -> URL.matcher(Cluster.read(log)).find() || !dev.isAlive(),
        () -> "colony dev printed no console URL:\n" + Cluster.read(log));
    Matcher m = URL.matcher(Cluster.read(log));
    assertTrue(m.find(), Cluster.read(log));
    String url = m.group(1).replaceAll("/$", "");
    assertTrue(Cluster.read(log).contains("Web UI:"), "the console's URL is printed beside the Web UI's:\n" + Cluster.read(log));

    browser = Chromium.start(tmp, 1400, 1000);
    browser.get(url);
    try {
      awaitText(LONG, "greeter");
      awaitText(LONG, "flaky");
    } finally {
      shot("overview");
    }

    // Pause greeter from its page; the CLI sees it paused.
    browser.get(url + "/ants/greeter");
    awaitText(LONG, "greeter");
    click("Pause");
    eventually(LONG, () -> cliQuietly("status", "greeter").contains("paused"),
        () -> "greeter is not paused in colony status:\n" + cliQuietly("status", "greeter"));
    awaitText(LIVE, "paused");
    shot("ant-paused");

    // Typed in a terminal: the open overview shows it without a reload.
    browser.get(url);
    awaitText(LONG, "flaky");
    markPage();
    cluster.cli("pause", "flaky");
    long typed = System.nanoTime();
    eventually(LIVE, () -> rowSays("flaky", "paused"), () -> "flaky's row never said paused:\n" + text());
    long shownMs = (System.nanoTime() - typed) / 1_000_000;
    assertNotReloaded();
    System.out.println("console: `colony pause flaky` reached the open page in " + shownMs + " ms");
    shot("overview-live");

    cluster.cli("resume", "flaky");
    eventually(LIVE, () -> !rowSays("flaky", "paused"), () -> "flaky's row never left paused:\n" + text());
    assertNotReloaded();

    // Every page answers and draws (a screenshot each for a reviewer).
    for (String page : List.of("inbox", "costs", "supervision")) {
      browser.get(url + "/" + page);
      eventually(LONG, () -> !text().isBlank(), "the page stayed blank");
      shot(page);
    }
    // A phone-sized window.
    browser.manage().window().setSize(new org.openqa.selenium.Dimension(390, 844));
    browser.get(url);
    awaitText(LONG, "greeter");
    shot("overview-phone");
    browser.get(url + "/ants/flaky");
    awaitText(LONG, "flaky");
    shot("ant-phone");
  }

  private static void deleteTree(Path dir) throws java.io.IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var files = Files.walk(dir)) {
      for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private String cliQuietly(String... args) {
    try {
      return cluster.cliRun(args).out();
    } catch (Exception e) {
      return e.toString();
    }
  }

  /**
   * Whether the overview's row for {@code ant} contains {@code word}. Read in one script: live
   * updates replace rows, so an element found a moment ago may be gone when its text is asked for.
   */
  private boolean rowSays(String ant, String word) {
    Object found = ((JavascriptExecutor) browser).executeScript("""
        const row = [...document.querySelectorAll('tr')].find(r => {
          const t = r.innerText;
          return t.startsWith(arguments[0] + ' ') || t.startsWith(arguments[0] + '\\n') || t.includes('\\n' + arguments[0] + '\\n');
        });
        return row ? row.innerText : null;""", ant);
    return found != null && found.toString().contains(word);
  }

  /** Clicks the visible button {@code label}, finding it again when a live update replaced it. */
  private void click(String label) throws InterruptedException {
    eventually(LONG, () -> {
      try {
        button(label).click();
        return true;
      } catch (org.openqa.selenium.StaleElementReferenceException | AssertionError notThereYet) {
        return false; // replaced by a live update, or not drawn yet
      }
    }, () -> "could not click '" + label + "' on\n" + text());
  }

  @Test
  void aConfirmationIsApprovedFromTheInboxCostsSurviveAWorkerRestartAndHostileTextStaysText() throws Exception {
    cluster = new Cluster(tmp).startServer();
    Files.writeString(cluster.dir.resolve(".env"), "COLONY_CLAUDE_BIN=" + cluster.dir.resolve("fake-claude.sh") + "\n");
    Cluster.WorkerProcess first = cluster.startWorker("first");
    String url = console(cluster.logs.resolve("console.log"), "--port", Integer.toString(Cluster.freePort()));
    browser = Chromium.start(tmp, 1400, 1000);

    // A dangerous call waits in the inbox; approved there, the ant goes on.
    cluster.start("epsilon");
    browser.get(url + "/inbox");
    try {
      awaitText(LONG, "git push origin main");
    } finally {
      shot("inbox-confirmation");
    }
    click("Approve");
    eventually(LONG, () -> cluster.status("epsilon").confirmations().isEmpty()
        && cluster.status("epsilon").sessions() >= 1 && "success".equals(cluster.status("epsilon").lastOutcome()),
        () -> "epsilon did not go on after the approval: " + cluster.status("epsilon"));
    eventually(LIVE, () -> !text().contains("git push origin main"), () -> "the answered request stayed:\n" + text());
    assertTrue(cluster.history("epsilon").contains("console:"), "the operator's name is not in the history");

    // Costs: sessions before and after a kill -9 of the worker.
    cluster.mode("alpha", "paid");
    cluster.start("alpha");
    eventually(LONG, () -> cluster.status("alpha").sessions() >= 2, "alpha's first sessions");
    Cluster.kill9(first);
    cluster.startWorker("second");
    int before = cluster.status("alpha").sessions();
    eventually(LONG, () -> cluster.status("alpha").sessions() >= before + 2, "alpha's sessions after the restart");
    cluster.cli("pause", "alpha");
    cluster.awaitSettledPaused("alpha"); // the totals are read once the last session has charged
    JsonNode costs = JSON.readTree(http(HttpRequest.newBuilder(URI.create(url + "/api/costs?days=30"))).body());
    double alphaUsd = 0;
    for (JsonNode a : costs.path("ants")) {
      if (a.path("name").asText().equals("alpha")) {
        alphaUsd = a.path("totalUsd").asDouble();
      }
    }
    int sessions = cluster.status("alpha").sessions();
    assertEquals(0.25 * sessions, alphaUsd, 0.001, "alpha's cost across the worker restart: " + costs);
    browser.get(url + "/costs");
    String total = String.format(java.util.Locale.ROOT, "%.2f", 0.25 * sessions);
    try {
      awaitText(LONG, total);
      assertTrue(!browser.findElements(By.cssSelector("canvas")).isEmpty(), "no chart on the costs page");
    } finally {
      shot("costs-after-restart");
    }
    String csv = http(HttpRequest.newBuilder(URI.create(url + "/api/costs.csv?days=30"))).body();
    assertTrue(csv.lines().anyMatch(l -> l.contains(",alpha,")), csv);

    // Hostile text in an ant's output and in what a human sends renders as text.
    cluster.mode("beta", "hostile");
    cluster.start("beta");
    eventually(LONG, () -> cluster.status("beta").consecutiveErrors() >= 1, "beta's hostile session");
    cluster.cli("pause", "beta");
    cluster.cli("send", "beta", "<script>alert(3)</script><img src=x onerror=alert(4)>");
    browser.get(url + "/ants/beta");
    try {
      awaitText(LONG, "<script>alert(2)</script>");
      awaitText(LONG, "<script>alert(3)</script>");
    } finally {
      shot("ant-hostile");
    }
    assertNoAlert();
    assertTrue(browser.findElements(By.cssSelector("img[src='x']")).isEmpty(), "an <img> from the ant's output was rendered");
    assertTrue(browser.findElements(By.xpath("//b[normalize-space()='bold']")).isEmpty(), "markup from the ant's output was rendered");
    assertTrue(!text().contains("\u001b"), "a terminal escape reached the page");
    browser.get(url);
    awaitText(LONG, "beta");
    assertNoAlert();
    assertTrue(browser.findElements(By.cssSelector("img[src='x']")).isEmpty(), "an <img> from the ant's output was rendered");
    shot("overview-hostile");
  }

  @Test
  void boundBeyondLoopbackItRefusesToStartWithoutATokenAndRefusesWrongTokens() throws Exception {
    cluster = new Cluster(tmp).startServer();
    cluster.startWorker("only");
    cluster.start("alpha");

    // Without a token: one clear line, a non-zero exit, nothing served.
    Path refusedLog = cluster.logs.resolve("refused.log");
    Process refused = consoleProcess(refusedLog, "--bind", "0.0.0.0", "--port", Integer.toString(Cluster.freePort()));
    assertTrue(refused.waitFor(60, TimeUnit.SECONDS), "colony console started without a token on 0.0.0.0");
    assertNotEquals(0, refused.exitValue(), Cluster.read(refusedLog));
    assertTrue(Cluster.read(refusedLog).contains("token"), Cluster.read(refusedLog));
    assertTrue(Cluster.read(refusedLog).lines().noneMatch(l -> l.startsWith("\tat ")), Cluster.read(refusedLog));

    int port = Cluster.freePort();
    console(cluster.logs.resolve("console.log"), "--bind", "0.0.0.0", "--port", Integer.toString(port),
        "--token", "operator-secret-1", "--read-token", "reader-secret-2");
    String url = "http://127.0.0.1:" + port;
    assertEquals(401, http(HttpRequest.newBuilder(URI.create(url + "/api/colony"))).statusCode());
    assertEquals(401, http(HttpRequest.newBuilder(URI.create(url + "/api/colony"))
        .header("Authorization", "Bearer wrong")).statusCode());
    assertEquals(200, http(HttpRequest.newBuilder(URI.create(url + "/api/colony"))
        .header("Authorization", "Bearer reader-secret-2")).statusCode());
    HttpRequest.Builder pauseAsReader = HttpRequest.newBuilder(URI.create(url + "/api/ants/alpha/pause"))
        .header("Authorization", "Bearer reader-secret-2").header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{}"));
    assertEquals(403, http(pauseAsReader).statusCode());
    assertTrue(!cluster.status("alpha").paused(), "a read-only token paused an ant");

    browser = Chromium.start(tmp, 1400, 1000);
    browser.get(url + "/");
    eventually(LONG, () -> !browser.findElements(By.cssSelector("input[type='password'], input[name='token']")).isEmpty(),
        () -> "no login form without a token:\n" + text());
    shot("login");
    WebElement token = browser.findElement(By.cssSelector("input[name='token']"));
    token.sendKeys("wrong-token-of-sixteen");
    token.submit();
    try {
      eventually(LONG, () -> browser.getCurrentUrl().contains("error=")
          && !browser.findElements(By.cssSelector("input[name='token']")).isEmpty(), () -> "no refusal shown:\n" + text());
    } finally {
      shot("login-refused");
    }
    assertTrue(!text().contains("alpha"), "the colony was shown after a wrong token:\n" + text());
    token = browser.findElement(By.cssSelector("input[name='token']"));
    List<WebElement> name = browser.findElements(By.cssSelector("input[name='name']"));
    if (!name.isEmpty()) {
      name.get(0).sendKeys("erin");
    }
    token.sendKeys("operator-secret-1");
    token.submit();
    awaitText(LONG, "alpha");
    assertTrue(!browser.getPageSource().contains("operator-secret-1"), "the token is in the page");
    shot("overview-signed-in");
  }
}
