package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.secrets.Secrets;
import dev.colony.console.ConsoleServer;
import dev.colony.client.FakeSource;
import dev.colony.board.FakeTaskBoard;
import dev.colony.task.Assignee;
import dev.colony.task.Priority;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
 * The board page in headless Chromium, against a console served in this JVM on an in-memory colony
 * and board (no Temporal: the page and its API are what is tested): columns, adding a task from the
 * form, moving it with the buttons, the drawer, approve and re-queue, hostile text shown as text, a
 * change on the board reaching the open page, and 10,000 tasks painted fast. Screenshots go to
 * {@code target/board-*.png}.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ConsoleBoardIT {
  private static final Duration WAIT = Duration.ofSeconds(15);
  private static final String HOSTILE = "<img src=x onerror=alert(1)><script>alert(2)</script> \u001b[31mred\u001b[0m";

  @TempDir
  Path tmp;

  private final FakeSource source = new FakeSource();
  private final FakeTaskBoard board = new FakeTaskBoard();
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

  private void serve(Duration poll) {
    source.put(FakeSource.row("alpha", 1, "session 14 running"));
    source.put(FakeSource.row("beta", 1, "waiting"));
    server = ConsoleServer.start(ConsoleServer.Options.defaults().withBind("127.0.0.1", 0)
        .withTiming(poll, Duration.ofSeconds(5)), source, board, new Secrets());
  }

  private String text() {
    return browser.findElement(By.tagName("body")).getText();
  }

  private Object js(String script, Object... args) {
    return ((JavascriptExecutor) browser).executeScript(script, args);
  }

  private WebElement column(String state) {
    return browser.findElement(By.cssSelector(".column.col-" + state));
  }

  private WebElement cardOf(String id) {
    return browser.findElement(By.cssSelector(".task[data-id='" + id + "']"));
  }

  /** The state of the column showing task {@code id}, or "" when none does. */
  private String columnOf(String id) {
    Object s = js("const c = document.querySelector(`.task[data-id='${arguments[0]}']`);"
        + " return c ? c.closest('.column').dataset.state : '';", id);
    return String.valueOf(s);
  }

  private void awaitColumn(String id, String state) throws InterruptedException {
    eventually(WAIT, () -> columnOf(id).equals(state), () -> id + " is not in " + state + " but in '" + columnOf(id)
        + "'; board: " + board.changes + "\n" + text());
  }

  private WebElement drawerButton(String label) {
    return browser.findElements(By.xpath("//aside[@id='drawer']//button[normalize-space()='" + label + "']")).stream()
        .filter(WebElement::isDisplayed).findFirst()
        .orElseThrow(() -> new AssertionError("no button '" + label + "' in the drawer:\n" + text()));
  }

  /** Clicks what {@code find} finds, finding it again when a live repaint replaced it in between. */
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

  private void setUpBoard() {
    long now = System.currentTimeMillis();
    board.put(FakeTaskBoard.card("bk1", "Try the new cache", TaskState.BACKLOG, null));
    board.put(new TaskCard("hello", "td1", "Write the getting-started guide", "", Priority.HIGH, List.of("docs"),
        Assignee.pool("docs"), TaskState.TODO, null, null, null, 0, now - 86_400_000L, now - 3_600_000L, now, List.of(), null,
        null, List.of(), List.of()));
    board.put(FakeTaskBoard.card("td2", "Bump the SDK", TaskState.TODO, null));
    board.put(FakeTaskBoard.card("wk1", "Fix the flaky upload test", TaskState.IN_PROGRESS, "alpha"));
    board.put(FakeTaskBoard.card("gone1", "Port the CLI to picocli 5", TaskState.IN_PROGRESS, "ghost"));
    board.put(FakeTaskBoard.reviewed("rev1", "Fix the login form", "The form loses the password.\nSteps:\n  1. open /login\n  2. type",
        "alpha"));
    board.put(FakeTaskBoard.reviewed("rev2", "Add rate limits", "Per token.", "beta"));
    board.put(FakeTaskBoard.card("dn1", "Release 0.9", TaskState.DONE, "beta"));
    board.put(new TaskCard("hello", "bl1", "Rotate the deploy key", "", Priority.NORMAL, List.of("ops"), Assignee.human("alice"),
        TaskState.BLOCKED, "needs a human with access to the vault", "beta", null, 3, now - 7_200_000L, now - 1_800_000L,
        now, List.of(), null, null, List.of(), List.of()));
    board.put(FakeTaskBoard.card("evil1", HOSTILE, TaskState.TODO, null));
  }

  @Test
  void aPersonRunsTheBoard() throws Exception {
    setUpBoard();
    serve(Duration.ofMillis(200));
    browser = Chromium.start(tmp, 1600, 1000);
    browser.get(server.url() + "/board");
    eventually(WAIT, () -> browser.findElements(By.cssSelector(".column")).size() == 6
        && columnOf("rev1").equals("in_review"), () -> "the board did not paint:\n" + text());
    js("window.__colonyMarker = 42;");
    for (String label : List.of("Backlog", "To Do", "In Progress", "In Review", "Done", "Blocked")) {
      assertTrue(text().contains(label), "column " + label + ":\n" + text());
    }
    assertEquals("3", column("todo").findElement(By.cssSelector(".colcount")).getText());
    // the ant-gone badge on the task whose worker is not a running ant, not on alpha's
    assertTrue(cardOf("gone1").getText().contains("ant gone"), cardOf("gone1").getText());
    assertTrue(!cardOf("wk1").getText().contains("ant gone"), cardOf("wk1").getText());
    assertTrue(cardOf("bl1").getText().contains("needs a human with access to the vault"));
    // hostile text is text: no element made from it, no script ran
    assertEquals(HOSTILE.replaceAll("\u001b\\[[0-9;]*m", ""), cardOf("evil1").findElement(By.cssSelector(".title")).getText());
    assertEquals(0L, js("return document.querySelectorAll('#board img, #board script').length;"));
    assertNoAlert();
    Chromium.screenshot(browser, "board", "columns");

    // add a task from the form
    browser.findElement(By.id("addToggle")).click();
    browser.findElement(By.id("addTitle")).sendKeys("Write the release notes");
    browser.findElement(By.id("addBody")).sendKeys("For 1.0.\nMention the board.");
    browser.findElement(By.id("addLabels")).sendKeys("docs, release");
    browser.findElement(By.cssSelector("#addPriority option[value='high']")).click();
    browser.findElement(By.id("addSubmit")).click();
    eventually(WAIT, () -> board.tasks.values().stream().anyMatch(t -> t.title().equals("Write the release notes")),
        () -> "the task was not added: " + board.changes + "\n" + text());
    TaskCard added = board.tasks.values().stream().filter(t -> t.title().equals("Write the release notes")).findFirst().orElseThrow();
    assertEquals("For 1.0.\nMention the board.", added.body());
    assertEquals(List.of("docs", "release"), added.labels());
    assertEquals(Priority.HIGH, added.priority());
    String id = added.id();
    awaitColumn(id, "todo");

    // move it with the buttons: back to the Backlog, then forward to To Do; no button moves it In
    // Progress (only an ant takes a task there)
    assertTrue(cardOf(id).findElements(By.cssSelector("button[aria-label='Move " + id + " to In Progress']")).isEmpty(),
        "a human is offered a move to In Progress");
    click(() -> cardOf(id).findElement(By.cssSelector("button[aria-label='Move " + id + " to Backlog']")));
    awaitColumn(id, "backlog");
    assertEquals(TaskState.BACKLOG, board.get(id).state());
    click(() -> cardOf(id).findElement(By.cssSelector("button[aria-label='Move " + id + " to To Do']")));
    awaitColumn(id, "todo");
    assertEquals(TaskState.TODO, board.get(id).state());

    // drag and drop (HTML5 drag events, dispatched as a mouse would: WebDriver cannot drag them natively)
    js("const card = document.querySelector(`.task[data-id='td2']`);"
        + " const col = document.querySelector('.column.col-backlog');"
        + " const dt = new DataTransfer();"
        + " card.dispatchEvent(new DragEvent('dragstart', {bubbles: true, dataTransfer: dt}));"
        + " col.dispatchEvent(new DragEvent('dragover', {bubbles: true, cancelable: true, dataTransfer: dt}));"
        + " col.dispatchEvent(new DragEvent('drop', {bubbles: true, cancelable: true, dataTransfer: dt}));"
        + " card.dispatchEvent(new DragEvent('dragend', {bubbles: true, dataTransfer: dt}));");
    awaitColumn("td2", "backlog");
    assertEquals(TaskState.BACKLOG, board.get("td2").state());
    browser.findElement(By.id("addCancel")).click();
    // the drawer: body with its newlines, commits, files, sessions linking to the ant, log
    click(() -> cardOf("rev1").findElement(By.cssSelector(".title")));
    eventually(WAIT, () -> browser.findElement(By.id("drawer")).isDisplayed()
        && browser.findElement(By.id("drawer")).getText().contains("Fix the login form"), () -> "no drawer:\n" + text());
    WebElement drawer = browser.findElement(By.id("drawer"));
    assertEquals("The form loses the password.\nSteps:\n  1. open /login\n  2. type",
        drawer.findElement(By.cssSelector("pre.body")).getText());
    assertTrue(drawer.getText().contains("Please keep the old endpoint."), drawer.getText());
    assertTrue(drawer.getText().contains("colony/alpha"), drawer.getText());
    assertTrue(drawer.getText().contains("+42"), drawer.getText());
    assertTrue(drawer.getText().contains("Add a test"), drawer.getText());
    assertTrue(drawer.findElement(By.xpath(".//a[contains(., 'session 14')]")).getAttribute("href").endsWith("/ants/alpha"));
    assertTrue(drawer.getText().contains("https://github.com/acme/web/issues/12"));
    eventually(WAIT, () -> browser.findElements(By.cssSelector(".toast")).isEmpty(), () -> "the toasts fade");
    browser.manage().window().setSize(new org.openqa.selenium.Dimension(1600, 1320)); // the whole drawer in the picture
    Chromium.screenshot(browser, "board", "drawer");
    browser.manage().window().setSize(new org.openqa.selenium.Dimension(1600, 1000));

    // approve: In Review -> Done
    click(() -> drawerButton("Approve"));
    awaitColumn("rev1", "done");
    assertEquals(TaskState.DONE, board.get("rev1").state());
    assertTrue(board.changes.contains("approve rev1 by @local"), board.changes.toString());

    // re-queue needs a comment: refused in the page without one, sent with one
    browser.findElement(By.cssSelector("body")).sendKeys(org.openqa.selenium.Keys.ESCAPE);
    eventually(WAIT, () -> !browser.findElement(By.id("drawer")).isDisplayed(), () -> "Escape closes the drawer");
    click(() -> cardOf("rev2").findElement(By.cssSelector(".title")));
    eventually(WAIT, () -> browser.findElement(By.id("drawer")).getText().contains("Add rate limits"), () -> text());
    click(() -> drawerButton("Re-queue"));
    eventually(WAIT, () -> browser.findElement(By.id("drawer")).getText().contains("a re-queue needs a comment"), () -> text());
    assertEquals(TaskState.IN_REVIEW, board.get("rev2").state());
    browser.findElement(By.cssSelector("#drawer textarea.comment")).sendKeys("Limit per IP too.");
    click(() -> drawerButton("Re-queue"));
    awaitColumn("rev2", "todo");
    assertEquals("Limit per IP too.", board.get("rev2").comments().getLast().text());

    // the hostile title in the drawer: text, as written
    click(() -> cardOf("evil1").findElement(By.cssSelector(".title")));
    eventually(WAIT, () -> browser.findElement(By.id("drawerTitle")).getText().contains("onerror"), () -> text());
    assertEquals(HOSTILE.replaceAll("\u001b\\[[0-9;]*m", ""), browser.findElement(By.id("drawerTitle")).getText());
    // a change made elsewhere (the CLI, an ant) reaches the open page without a reload
    board.put(FakeTaskBoard.card("live1", "Came from the CLI " + HOSTILE, TaskState.BLOCKED, null));
    awaitColumn("live1", "blocked");
    assertEquals(42L, js("return window.__colonyMarker;"), "the page was reloaded");
    browser.manage().window().setSize(new org.openqa.selenium.Dimension(420, 900)); // a phone: columns side by side, scrolled
    Chromium.screenshot(browser, "board", "phone-drawer");
    browser.findElement(By.cssSelector("body")).sendKeys(org.openqa.selenium.Keys.ESCAPE);
    eventually(WAIT, () -> !browser.findElement(By.id("drawer")).isDisplayed(), () -> "Escape closes the drawer");
    Chromium.screenshot(browser, "board", "phone");
    assertEquals(0L, js("return document.querySelectorAll('#board img, #board script, #drawer img').length;"));
    assertNoAlert();
  }

  @Test
  void theInboxAnswersTasksAndTheAntPageShowsItsTask() throws Exception {
    setUpBoard();
    serve(Duration.ofMillis(200));
    browser = Chromium.start(tmp, 1400, 1000);
    browser.get(server.url() + "/inbox");
    eventually(WAIT, () -> browser.findElements(By.cssSelector("#taskItems [data-task]")).size() == 3,
        () -> "the inbox does not list the 2 tasks In Review and the Blocked one:\n" + text());
    WebElement blocked = browser.findElement(By.cssSelector("#taskItems [data-task='bl1']"));
    assertTrue(blocked.getText().contains("needs a human with access to the vault"), blocked.getText());
    assertTrue(blocked.findElements(By.xpath(".//button[normalize-space()='Approve']")).isEmpty(), "Blocked: no approve");
    Chromium.screenshot(browser, "board", "inbox");
    click(() -> browser.findElement(By.cssSelector("#taskItems [data-task='rev1']"))
        .findElement(By.xpath(".//button[normalize-space()='Approve']")));
    eventually(WAIT, () -> board.get("rev1").state() == TaskState.DONE
        && browser.findElements(By.cssSelector("#taskItems [data-task='rev1']")).isEmpty(), () -> "approved:\n" + text());
    // re-queue needs a comment
    click(() -> browser.findElement(By.cssSelector("#taskItems [data-task='bl1']")).findElement(By.xpath(".//button[normalize-space()='Re-queue']")));
    eventually(WAIT, () -> text().contains("a re-queue needs a comment"), () -> text());
    assertEquals(TaskState.BLOCKED, board.get("bl1").state());
    browser.findElement(By.cssSelector("#taskItems [data-task='bl1'] input")).sendKeys("The key is in the vault now.");
    click(() -> browser.findElement(By.cssSelector("#taskItems [data-task='bl1']")).findElement(By.xpath(".//button[normalize-space()='Re-queue']")));
    eventually(WAIT, () -> board.get("bl1").state() == TaskState.TODO, () -> "re-queued: " + board.changes);
    // a task that reaches In Review elsewhere shows up without a reload
    board.put(FakeTaskBoard.reviewed("rev9", "Tidy the README", "", "beta"));
    eventually(WAIT, () -> !browser.findElements(By.cssSelector("#taskItems [data-task='rev9']")).isEmpty(), () -> text());

    // the ant page names the task its ant works on
    browser.get(server.url() + "/ants/alpha");
    eventually(WAIT, () -> text().contains("Working on task wk1: Fix the flaky upload test"), () -> text());
    assertTrue(browser.findElement(By.cssSelector("#task a")).getAttribute("href").endsWith("/board#task=wk1"));
  }

  @Test
  void tenThousandTasksPaintInASecond() throws Exception {
    long now = System.currentTimeMillis();
    TaskState[] states = TaskState.values();
    for (int i = 0; i < 10_000; i++) {
      TaskState s = states[i % states.length];
      board.tasks.put("t" + i, new TaskCard("hello", "t" + i, "Task number " + i + " with a title of a usual length", "",
          Priority.values()[i % 3], List.of("docs", "backend"), Assignee.pool("docs"), s, null,
          s == TaskState.IN_PROGRESS ? "alpha" : null, null, 0, now - i * 1000L, now - i * 500L, now - i, List.of(), null, null,
          List.of(), List.of()));
    }
    serve(Duration.ofMillis(400));
    browser = Chromium.start(tmp, 1600, 1000);
    browser.get(server.url() + "/board");
    eventually(WAIT, () -> "1667".equals(column("todo").findElement(By.cssSelector(".colcount")).getText()),
        () -> "the board did not paint 10,000 tasks:\n" + text());
    // From the navigation's start to the columns painted (the page's own clock and mark).
    double painted = ((Number) js("return performance.getEntriesByName('board-painted')[0].startTime;")).doubleValue();
    double load = ((Number) js("return performance.getEntriesByType('resource')"
        + ".filter(e => e.name.endsWith('/api/tasks')).map(e => e.responseEnd)[0] || 0;")).doubleValue();
    System.out.printf("board: 10,000 tasks: /api/tasks answered at %.0f ms, painted by %.0f ms%n", load, painted);
    assertEquals(50, column("todo").findElements(By.cssSelector(".task")).size(), "a column paints 50 cards at first");
    // The first paint holds each column's first cards; "Show more" is offered once the whole board is read.
    eventually(WAIT, () -> ((Number) js("return performance.getEntriesByName('board-loaded').length;")).intValue() > 0,
        () -> "the whole board was never read:\n" + text());
    click(() -> column("todo").findElement(By.cssSelector("button.more")));
    eventually(WAIT, () -> column("todo").findElements(By.cssSelector(".task")).size() == 150, () -> "show more");
    Chromium.screenshot(browser, "board", "ten-thousand");
    // Once more, the console warm (the first answer of a JVM pays for its JIT).
    browser.navigate().refresh();
    eventually(WAIT, () -> Boolean.TRUE.equals(js("return performance.getEntriesByName('board-painted').length > 0;")),
        () -> "the board did not paint again:\n" + text());
    double again = ((Number) js("return performance.getEntriesByName('board-painted')[0].startTime;")).doubleValue();
    double loadAgain = ((Number) js("return performance.getEntriesByType('resource')"
        + ".filter(e => e.name.endsWith('/api/tasks')).map(e => e.responseEnd)[0] || 0;")).doubleValue();
    System.out.printf("board: 10,000 tasks, warm: /api/tasks answered at %.0f ms, painted by %.0f ms%n", loadAgain, again);
    // What keeps it fast is that the page paints 6 x 50 cards, not 10,000 (asserted above); its time
    // is bounded loosely here and the whole first paint printed: on a loaded CI machine both vary.
    assertTrue(painted - load < 5000, "painting 10,000 tasks took " + (painted - load) + " ms after the answer");
  }
}
