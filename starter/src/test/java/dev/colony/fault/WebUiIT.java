package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The Web UI of the dev server, in Debian's headless Chromium (driven through its chromedriver;
 * nothing downloads a browser): filter ants by {@code AntState}, open one, find its pause signal
 * and a session activity in its history. Screenshots go to {@code target/webui-*.png}.
 */
@Timeout(600)
class WebUiIT {
  @TempDir
  Path tmp;

  private Cluster cluster;
  private WebDriver browser;

  @BeforeEach
  void setUp() throws Exception {
    cluster = new Cluster(tmp).startServer();
    browser = Chromium.start(tmp, 1500, 1100);
  }

  @AfterEach
  void tearDown() {
    if (browser != null) {
      browser.quit();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private void screenshot(String name) throws Exception {
    Chromium.screenshot(browser, "webui", name);
  }

  private void awaitText(String text) throws InterruptedException {
    eventually(Duration.ofSeconds(60), () -> browser.getPageSource().contains(text), "browser.getPageSource().contains(text)");
  }

  @Test
  void theWebUiFiltersAntsByStateAndShowsTheirSessionsAndSignals() throws Exception {
    cluster.startWorker("only");
    cluster.start("alpha", "delta");
    eventually(Duration.ofSeconds(60), () -> cluster.status("delta").sessions() >= 1
        && cluster.status("alpha").sessions() >= 1, "cluster.status(\"delta\").sessions() >= 1 && cluster.status(\"alpha\").sessions() >= 1");
    cluster.cli("pause", "delta");
    eventually(Duration.ofSeconds(60), () -> cluster.status("delta").paused(), "cluster.status(\"delta\").paused()");
    String ui = "http://127.0.0.1:" + cluster.uiPort;

    String query = URLEncoder.encode("AntState = 'paused'", StandardCharsets.UTF_8).replace("+", "%20");
    browser.get(ui + "/namespaces/default/workflows?query=" + query);
    try {
      awaitText("ant/fault/delta");
    } finally {
      screenshot("paused-ants");
    }
    assertTrue(!browser.getPageSource().contains("ant/fault/alpha"), "the filter let a running ant through");

    List<WebElement> links = browser.findElements(By.partialLinkText("ant/fault/delta"));
    assertTrue(!links.isEmpty(), "no link to the ant in the list");
    links.get(0).click();
    try {
      awaitText("RunSession");
      awaitText("pause");
    } finally {
      screenshot("ant-history");
    }
    String page = browser.getPageSource();
    assertTrue(page.contains("session 1 · command") || page.contains("RunSession"), "no session activity shown");
  }

  /**
   * examples/hello as a new user runs it: in the Web UI, each of an ant's timers is named for what
   * it waits for (the poll interval, a rate limit), not by its id alone.
   */
  @Test
  void theTimelineOfExamplesHelloNamesEveryTimer() throws Exception {
    cluster.close();
    cluster = new Cluster(tmp.resolve("hello"), Path.of("../examples/hello").toAbsolutePath()).startServer();
    cluster.colonyName = "hello";
    cluster.startWorker("only");
    cluster.start();
    // flaky is rate limited every third session.
    eventually(Duration.ofSeconds(90), () -> cluster.status("flaky").sessions() >= 4
        && cluster.status("greeter").sessions() >= 2, "cluster.status(\"flaky\").sessions() >= 4 && cluster.status(\"greeter\").sessions() >= 2");
    String ui = "http://127.0.0.1:" + cluster.uiPort;
    for (String ant : List.of("flaky", "greeter")) {
      String query = URLEncoder.encode("WorkflowId = 'ant/hello/" + ant + "'", StandardCharsets.UTF_8).replace("+", "%20");
      browser.get(ui + "/namespaces/default/workflows?query=" + query);
      // The query box holds the id at once; the list's link comes when the list is loaded.
      eventually(Duration.ofSeconds(60), () -> !browser.findElements(By.partialLinkText("ant/hello/" + ant)).isEmpty(), "!browser.findElements(By.partialLinkText(\"ant/hello/\" + ant)).isEmpty()");
      browser.findElements(By.partialLinkText("ant/hello/" + ant)).get(0).click();
      try {
        awaitText("next session in "); // flaky sleeps 3s, greeter the colony's 5s
        if (ant.equals("flaky")) {
          awaitText("rate limit until");
        }
      } finally {
        screenshot("timeline-" + ant);
      }
    }
    // Every timer the history holds has its summary (the UI shows what the history carries).
    for (String ant : List.of("flaky", "greeter")) {
      for (var e : cluster.client.fetchHistory("ant/hello/" + ant).getEvents()) {
        if (e.hasTimerStartedEventAttributes()) {
          assertTrue(e.hasUserMetadata() && !e.getUserMetadata().getSummary().getData().isEmpty(),
              ant + ": a timer without a summary: " + e);
        }
      }
    }
  }
}
