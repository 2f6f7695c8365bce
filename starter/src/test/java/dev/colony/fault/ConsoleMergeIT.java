package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.secrets.Secrets;
import dev.colony.console.ConsoleServer;
import dev.colony.client.FakeMergeSource;
import dev.colony.client.FakeSource;
import dev.colony.merge.ItemState;
import dev.colony.merge.MergeCard;
import dev.colony.merge.MergeItem;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The Merge page in headless Chromium, against a console served in this JVM on in-memory merge
 * queues (no Temporal: the page and its API are what is tested): the queues drawn, hostile text
 * shown as text, Retry and a confirmed Cancel reaching the queue, a change in a queue reaching the
 * open page, the inbox's merge items, the empty state. One browser, a few seconds. Screenshots go
 * to {@code target/merge-*.png}.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ConsoleMergeIT {
  private static final Duration WAIT = Duration.ofSeconds(15);
  private static final String HOSTILE = "<img src=x onerror=alert(1)><script>alert(2)</script> \u001b[31mred\u001b[0m";

  @TempDir
  Path tmp;

  private final FakeSource source = new FakeSource();
  private final FakeMergeSource merges = new FakeMergeSource();
  private ConsoleServer server;
  private WebDriver browser;

  @AfterEach
  void tearDown() {
    if (browser != null) {
      browser.quit();
    }
    if (server != null) {
      server.close();
    }
  }

  private String text() {
    return browser.findElement(By.tagName("body")).getText();
  }

  private Object js(String script, Object... args) {
    return ((JavascriptExecutor) browser).executeScript(script, args);
  }

  private WebElement item(String id) {
    return browser.findElement(By.cssSelector(".mitem[data-item='" + id + "']"));
  }

  private String stateOf(String id) {
    return String.valueOf(js("const e = document.querySelector(`.mitem[data-item='${arguments[0]}']`);"
        + " return e ? e.dataset.state : '';", id));
  }

  private void click(java.util.function.Supplier<WebElement> find) throws InterruptedException {
    eventually(WAIT, () -> {
      try {
        find.get().click();
        return true;
      } catch (org.openqa.selenium.StaleElementReferenceException | org.openqa.selenium.NoSuchElementException again) {
        return false;
      }
    }, () -> "could not click:\n" + text());
  }

  private void assertNoAlert() {
    try {
      String alert = browser.switchTo().alert().getText();
      throw new AssertionError("a script ran in the page: alert(" + alert + ")");
    } catch (NoAlertPresentException expected) {
      // nothing ran
    }
  }

  private long t0 = System.nanoTime();

  private void mark(String what) {
    System.out.printf("merge IT: %s at %d ms%n", what, (System.nanoTime() - t0) / 1_000_000);
  }

  private static MergeCard app(List<MergeItem> items) {
    return FakeMergeSource.card("app", items,
        List.of(FakeMergeSource.landed("alpha-1", "alpha", 3, 42_000, 1_200, 600_000, 4, null),
            FakeMergeSource.landed("beta-0", "beta", 1, 8_000, 900, 3_600_000, 1, "https://github.com/acme/app/pull/17")),
        Map.of("alpha", List.of("src/api/**", "docs/*.md")),
        Map.of("beta", "alpha: src/api/**", "zed", "gamma: src/api/Users.java", "yan", "gamma: src/api/Users.java"),
        Map.of("src/api", List.of("alpha", "beta"), "docs", List.of("alpha", "gamma")));
  }

  private static List<MergeItem> line() {
    List<MergeItem> items = new ArrayList<>();
    items.add(FakeMergeSource.item("alpha-2", "alpha", ItemState.LANDING, "testing", 0, null, "t1", 60_000));
    items.add(FakeMergeSource.item("beta-1", "beta", ItemState.QUEUED, null, 0, null, null, 30_000));
    items.add(FakeMergeSource.item("gamma-4", "gamma", ItemState.NEEDS_HUMAN, null, 3,
        "a conflict in src/api/Users.java, 3 tries\n" + HOSTILE, "t7", 3_600_000));
    items.add(FakeMergeSource.item("delta-1", "delta", ItemState.AWAITING_REVIEW, null, 0, null, "t9", 120_000));
    items.add(FakeMergeSource.item("eps-2", "eps", ItemState.REWORK, null, 1,
        "tests failed (exit 1):\n  FAIL UsersTest.login\n  expected 200, was 500", null, 900_000));
    return items;
  }

  private static dev.colony.client.ColonySource.Row paused(String name, String state, boolean paused, String reason,
      boolean needsHuman) {
    var r = FakeSource.row(name, System.nanoTime(), "paused");
    return new dev.colony.client.ColonySource.Row(name, state, paused, reason, r.sessions(), r.errors(), r.queue(),
        null, r.host(), needsHuman, "success", r.card(), true, System.currentTimeMillis());
  }

  /**
   * A holder of paths others wait for that is paused by a human, or parked, is named in the inbox as
   * their blocker, with why and what to do; a pause or a resume reaches the open inbox through the
   * live stream.
   */
  @Test
  void aPausedOrParkedHolderIsShownAsTheBlockerInTheInbox() throws Exception {
    List<MergeItem> items = List.of(
        FakeMergeSource.item("alpha-2", "alpha", ItemState.QUEUED, null, 0, null, "t1", 60_000),
        FakeMergeSource.item("omega-1", "omega", ItemState.QUEUED, null, 0, null, "t3", 60_000));
    merges.put(FakeMergeSource.card("app", items, List.of(), Map.of("alpha", List.of("src/api/**")),
        Map.of("kappa", "omega: src/x/**", "lam", "parko: docs/**", "mu", "alpha: src/api/**"), Map.of()));
    source.put(FakeSource.row("alpha", 1, "session 14 running"));
    source.put(paused("omega", "paused", true, "operator", false)); // colony pause omega
    source.put(paused("parko", "parked", true, "parked", true)); // parked after errors: it needs a human
    server = ConsoleServer.start(ConsoleServer.Options.defaults().withBind("127.0.0.1", 0)
        .withTiming(Duration.ofMillis(400), Duration.ofSeconds(5)), source, null, merges, new Secrets());
    browser = Chromium.start(tmp, 1400, 1000);
    browser.get(server.url() + "/inbox");
    eventually(WAIT, () -> browser.findElements(By.cssSelector("#mergeItems [data-blocker='omega']")).size() == 1
        && browser.findElements(By.cssSelector("#mergeItems [data-blocker='parko']")).size() == 1,
        () -> "the paused omega and the parked parko are not shown as blockers:\n" + text());
    String omega = browser.findElement(By.cssSelector("#mergeItems [data-blocker='omega']")).getText();
    assertTrue(omega.contains("holds paths") && omega.contains("it is paused by a human")
        && omega.contains("1 ant waits for its paths in app: kappa") && omega.contains("src/x/**")
        && omega.contains("Resume it, or stop it: a stop gives its claim back."), omega);
    String parko = browser.findElement(By.cssSelector("#mergeItems [data-blocker='parko']")).getText();
    assertTrue(parko.contains("it is parked (paused after errors)") && parko.contains("lam")
        && parko.contains("resume it, or stop it: a stop gives its claim back."), parko);
    assertTrue(browser.findElements(By.cssSelector("#mergeItems [data-blocker='alpha']")).isEmpty(),
        "alpha works: its paths are not stuck\n" + text());
    assertEquals("2", String.valueOf(js("return document.getElementById('mergeCount').textContent.replace(/[()]/g, '');")),
        "two merge cards: the two blockers (no item needs a human)\n" + text());
    Chromium.screenshot(browser, "merge", "inbox-paused-holder");

    // alpha is paused, omega resumed: the open inbox follows the stream (no reload, no timer)
    js("window.__colonyMarker = 44;");
    source.put(paused("alpha", "paused", true, "operator", false));
    source.put(FakeSource.row("omega", 2, "session 3 running"));
    eventually(WAIT, () -> browser.findElements(By.cssSelector("#mergeItems [data-blocker='alpha']")).size() == 1
        && browser.findElements(By.cssSelector("#mergeItems [data-blocker='omega']")).isEmpty(),
        () -> "alpha's pause and omega's resume did not reach the open inbox:\n" + text());
    assertTrue(browser.findElement(By.cssSelector("#mergeItems [data-blocker='alpha']")).getText()
        .contains("it is paused by a human"), text());
    assertEquals(44L, js("return window.__colonyMarker;"), "the inbox was reloaded");
    assertNoAlert();
  }

  @Test
  void aPersonWatchesAndSteersTheMergeQueues() throws Exception {
    merges.put(app(line()));
    merges.put(FakeMergeSource.card("docs-site", List.of(),
        List.of(FakeMergeSource.landed("gamma-2", "gamma", 2, 3_000, 700, 7_200_000, 12, null)), Map.of(), Map.of(), Map.of()));
    source.put(FakeSource.row("alpha", 1, "session 14 running"));
    server = ConsoleServer.start(ConsoleServer.Options.defaults().withBind("127.0.0.1", 0)
        .withTiming(Duration.ofMillis(400), Duration.ofSeconds(5)), source, null, merges, new Secrets());
    mark("console started");
    browser = Chromium.start(tmp, 1400, 1200);
    mark("chromium started");
    browser.get(server.url() + "/merge");
    eventually(WAIT, () -> browser.findElements(By.cssSelector(".mqueue")).size() == 2
        && browser.findElements(By.cssSelector(".mitem")).size() == 5, () -> "the queues were not drawn:\n" + text());
    js("window.__colonyMarker = 42;");
    mark("page drawn");
    String page = text().toLowerCase(java.util.Locale.ROOT); // headings are drawn in capitals
    for (String s : List.of("app", "docs-site", "target main", "testing", "needs a human", "awaiting review", "rework",
        "beta waits for alpha on src/api/**", "where ants collide", "last landings", "pull request")) {
      assertTrue(page.contains(s), "'" + s + "' is not on the page:\n" + page);
    }
    assertEquals("LANDING", stateOf("alpha-2"));
    assertTrue(item("alpha-2").getText().contains("landing · testing"), item("alpha-2").getText());
    assertTrue(item("alpha-2").findElements(By.tagName("button")).isEmpty(), "a landing item has no button");
    assertTrue(item("delta-1").findElements(By.cssSelector("button[aria-label='Approve delta-1']")).size() == 1);
    assertTrue(browser.findElement(By.xpath("//a[normalize-space()='pull request']")).getAttribute("href")
        .equals("https://github.com/acme/app/pull/17"));
    // hostile text is text: as written (terminal escapes removed), no element made from it, no script ran
    assertEquals("a conflict in src/api/Users.java, 3 tries\n" + HOSTILE.replaceAll("\u001b\\[[0-9;]*m", ""),
        item("gamma-4").findElement(By.cssSelector("pre.detail")).getText());
    assertEquals(0L, js("return document.querySelectorAll('#queues img, #queues script').length;"));
    assertNoAlert();
    Chromium.screenshot(browser, "merge", "desktop");
    mark("desktop shot");

    // Retry reaches the queue; the page shows the item back in line without a reload
    click(() -> item("gamma-4").findElement(By.cssSelector("button[aria-label='Retry gamma-4']")));
    eventually(WAIT, () -> merges.decisions.contains("retry gamma-4 in app by @local") && stateOf("gamma-4").equals("QUEUED"),
        () -> "retry: " + merges.decisions + "\n" + text());
    // Cancel asks first: Keep sends nothing, "Yes, cancel it" does
    click(() -> item("beta-1").findElement(By.cssSelector("button[aria-label='Cancel beta-1']")));
    WebElement confirm = item("beta-1").findElement(By.cssSelector(".confirm"));
    assertTrue(confirm.isDisplayed() && confirm.getText().contains("Take beta-1 out of the queue?"), confirm.getText());
    confirm.findElement(By.xpath(".//button[normalize-space()='Keep it']")).click();
    assertTrue(!item("beta-1").findElement(By.cssSelector(".confirm")).isDisplayed());
    click(() -> item("beta-1").findElement(By.cssSelector("button[aria-label='Cancel beta-1']")));
    click(() -> item("beta-1").findElement(By.xpath(".//button[normalize-space()='Yes, cancel it']")));
    eventually(WAIT, () -> browser.findElements(By.cssSelector(".mitem[data-item='beta-1']")).isEmpty(),
        () -> "cancel: " + merges.decisions + "\n" + text());
    assertEquals(List.of("retry gamma-4 in app by @local", "cancel beta-1 in app by @local"), merges.decisions);
    mark("retry and cancel");
    // the queue's refusal is said next to the buttons
    merges.refuseNext = "eps-2 was resubmitted meanwhile: look at it again";
    click(() -> item("eps-2").findElement(By.cssSelector("button[aria-label='Retry eps-2']")));
    eventually(WAIT, () -> item("eps-2").findElement(By.cssSelector(".msg")).getText()
        .equals("eps-2 was resubmitted meanwhile: look at it again"), () -> text());
    assertEquals("REWORK", stateOf("eps-2"));
    mark("refusal");

    // a change in a queue (the queue moved on) reaches the open page without a reload
    List<MergeItem> moved = line();
    moved.set(0, FakeMergeSource.item("alpha-2", "alpha", ItemState.LANDING, "updating main", 0, null, "t1", 60_000));
    moved.add(FakeMergeSource.item("omega-1", "omega " + HOSTILE, ItemState.QUEUED, null, 0, null, null, 5_000));
    merges.put(app(moved));
    eventually(WAIT, () -> !browser.findElements(By.cssSelector(".mitem[data-item='omega-1']")).isEmpty()
        && item("alpha-2").getText().contains("updating main"), () -> "the change did not show:\n" + text());
    assertEquals(42L, js("return window.__colonyMarker;"), "the page was reloaded");
    mark("live change");
    assertEquals(0L, js("return document.querySelectorAll('#queues img, #queues script').length;"));
    assertNoAlert();

    browser.manage().window().setSize(new Dimension(400, 1600)); // a phone
    Chromium.screenshot(browser, "merge", "phone");
    js("document.querySelector('table.landed').scrollIntoView();");
    Chromium.screenshot(browser, "merge", "phone-landings");

    // the inbox lists the items that wait for a human, with their buttons
    browser.manage().window().setSize(new Dimension(1400, 1000));
    browser.get(server.url() + "/inbox");
    eventually(WAIT, () -> browser.findElements(By.cssSelector("#mergeItems [data-merge]")).size() == 2,
        () -> "the inbox does not list the item needing a human and the one awaiting review:\n" + text());
    WebElement review = browser.findElement(By.cssSelector("#mergeItems [data-merge='delta-1']"));
    assertTrue(review.getText().contains("merge awaiting review"), review.getText());
    click(() -> browser.findElement(By.cssSelector("#mergeItems [data-merge='delta-1'] button[aria-label='Approve delta-1']")));
    eventually(WAIT, () -> merges.decisions.contains("approve delta-1 in app by @local")
        && browser.findElements(By.cssSelector("#mergeItems [data-merge='delta-1']")).isEmpty(), () -> text());
    // the stuck gamma (its item needs a human) holds paths two ants wait for: named, with where to act;
    // alpha holds paths too, but its item lands: no card
    WebElement blocked = browser.findElement(By.cssSelector("#mergeItems [data-blocker='gamma']"));
    assertTrue(blocked.getText().contains("its item gamma-4 needs a human")
        && blocked.getText().contains("2 ants wait for its paths in app: yan, zed")
        && blocked.getText().contains("src/api/Users.java"), blocked.getText());
    assertTrue(browser.findElements(By.cssSelector("#mergeItems [data-blocker='alpha']")).isEmpty(), text());
    Chromium.screenshot(browser, "merge", "inbox");
    mark("inbox");

    // a queue's change reaches the open inbox through the live stream (no timer, no reload)
    js("window.__colonyMarker = 43;");
    List<MergeItem> stuck = line();
    stuck.add(FakeMergeSource.item("zeta-1", "zeta", ItemState.NEEDS_HUMAN, null, 3, "tests failed (exit 1)", null, 1_000));
    merges.put(app(stuck));
    eventually(WAIT, () -> !browser.findElements(By.cssSelector("#mergeItems [data-merge='zeta-1']")).isEmpty(),
        () -> "the new item needing a human did not show in the open inbox:\n" + text());
    assertEquals(43L, js("return window.__colonyMarker;"), "the inbox was reloaded");
    mark("inbox live");

    // no queue at all: the page says how to get one
    merges.queues.clear();
    browser.get(server.url() + "/merge");
    eventually(WAIT, () -> text().contains("No merge queue: add merge.repos to colony.yaml"), () -> text());
    Chromium.screenshot(browser, "merge", "empty");
    mark("empty");

    // the picture for docs/console.md: a queue as a team sees it on a usual day
    List<MergeItem> usual = line();
    usual.set(2, FakeMergeSource.item("gamma-4", "gamma", ItemState.NEEDS_HUMAN, null, 3,
        "rebasing colony/gamma onto main stopped: conflicts in src/api/Users.java (3 tries)\n"
            + "rebase colony/gamma onto main, resolve the conflicts in src/api/Users.java keeping both changes' intent, commit",
        "t7", 3_600_000));
    merges.put(app(usual));
    browser.manage().window().setSize(new Dimension(1400, 1250));
    browser.navigate().refresh();
    eventually(WAIT, () -> browser.findElements(By.cssSelector(".mitem")).size() == 5, () -> text());
    Chromium.screenshot(browser, "merge", "docs");
  }
}
