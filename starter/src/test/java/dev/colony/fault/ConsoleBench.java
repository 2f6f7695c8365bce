package dev.colony.fault;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colony.testing.Eventually;
import dev.colony.visibility.AntCard;
import dev.colony.visibility.AntSearchAttributes;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.SearchAttributes;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;

/**
 * The console as a user meets it, measured ({@code bench/console} writes {@code bench/CONSOLE.md}):
 * the overview's first meaningful paint with 1,000 and 10,000 ants (headless Chromium, no worker:
 * every figure from visibility), the time from a signal to the change on an open page (a real ant
 * and worker), and the console's memory and calls to Temporal with nobody watching and with ten
 * watchers. Real processes on loopback: {@code colony server}, {@code colony worker},
 * {@code colony console} from the built jar.
 */
public final class ConsoleBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern URL = Pattern.compile("console on\\s+(http://\\S+)");
  private static final String COLONY = "bench";
  /** Sorts before every ant-NNNNN, so it is on the overview's first page. */
  private static final String LIVE_ANT = "aaa-idle";
  private static final int PAINT_RUNS = 5;
  private static final int SIGNALS = 40;
  private static final Duration WINDOW = Duration.ofSeconds(60);

  private ConsoleBench() {}

  /** The one-minute load average ({@code /proc/loadavg}), "unknown" where there is none. */
  static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    } catch (java.io.IOException | RuntimeException e) {
      return "unknown";
    }
  }

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args.length > 0 ? args[0] : "bench/CONSOLE.md");
    Path tmp = Files.createTempDirectory("colony-console-bench");
    Path fixture = fixture(tmp.resolve("fixture"));
    List<String> report = new ArrayList<>();
    long began = System.nanoTime();
    String loadAtStart = loadAverage();
    try (Cluster c = new Cluster(tmp, fixture)) {
      c.colonyName = COLONY;
      c.startServer("dev");
      c.startWorker("only");
      c.start(LIVE_ANT);
      Eventually.eventually(Duration.ofSeconds(60), () -> c.status(LIVE_ANT).sessions() >= 1, "the live ant's first session");

      Path consoleLog = c.logs.resolve("console.log");
      Process console = new ProcessBuilder(Cluster.jvm("console", c.dir.toString(), "--address", c.address,
          "--port", Integer.toString(Cluster.freePort()))).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(consoleLog.toFile())).start();
      try {
        Eventually.eventually(Duration.ofSeconds(90), () -> URL.matcher(Cluster.read(consoleLog)).find(),
            "the console's URL");
        Matcher m = URL.matcher(Cluster.read(consoleLog));
        m.find();
        String url = m.group(1).replaceAll("/$", "");

        List<String> paint = new ArrayList<>();
        int have = 0;
        for (int n : new int[] {1_000, 10_000}) {
          long t0 = System.nanoTime();
          startShaped(c, have, n);
          long startMs = (System.nanoTime() - t0) / 1_000_000;
          have = n;
          Eventually.eventually(Duration.ofMinutes(5), () -> total(url) >= n + 1, "visibility lists all ants");
          paint.add(paintRow(tmp, url, n, startMs));
        }
        report.add("## Overview: first meaningful paint\n");
        report.add("A fresh page load of `/` in headless Chromium (1400x1000) until the first ant's row is drawn (a link to an ant in the table), read in the page as `performance.now()` (from the start of navigation: the server's answers included). The ants are started with their search attributes and a representative card in the memo (a 30-day ledger, 5 recent sessions) and have no worker: every figure comes from visibility. One ant with a worker besides them. Runs: 1 cold (first load) and " + PAINT_RUNS + " warm.\n");
        report.add("| ants | cold | warm median (min–max) | target |\n|---|---|---|---|");
        report.addAll(paint);

        report.add("\n## The costs page at 10,000 ants\n");
        report.add(costs(tmp, url, have + 1));

        report.add("\n## From a signal to the open page\n");
        report.add(latency(tmp, c, url));

        report.add("\n## The console's memory and calls to Temporal\n");
        report.add(idleAndWatched(url, console, c));
      } finally {
        console.destroy();
        console.waitFor(20, TimeUnit.SECONDS);
      }
    }
    report.add(String.format(Locale.ROOT, "\nMachine: %d cores, Java %s, %s %s, load average %s at the start and %s at the "
            + "end (what else ran: the figures are only as quiet as the machine). Took %d s. Recorded %s.",
        Runtime.getRuntime().availableProcessors(), Runtime.version(), System.getProperty("os.name"),
        System.getProperty("os.arch"), loadAtStart, loadAverage(), (System.nanoTime() - began) / 1_000_000_000L, Instant.now()));
    String doc = "# The console, measured\n\nMeasured by `bench/console` (the `ConsoleBench` main): `colony server` "
        + "(the real Temporal dev server, SQLite), `colony worker` and `colony console` as processes from the built jar, "
        + "the pages in headless Chromium.\n\n" + String.join("\n", report) + "\n";
    Files.writeString(out, doc);
    System.out.println(doc);
  }

  /** A colony with one command ant that works once, then waits an hour between sessions. */
  static Path fixture(Path dir) throws Exception {
    Files.createDirectories(dir.resolve("ants"));
    Files.writeString(dir.resolve("colony.yaml"), "name: " + COLONY + "\n");
    Files.writeString(dir.resolve("ants").resolve(LIVE_ANT + ".yaml"), """
        name: %s
        description: works once, then waits an hour
        instructions: Say hello.
        engine: command
        poll_interval: 1h
        command:
          argv: ["sh", "-c", "echo hello; echo COLONY_COST_USD=0.05"]
        """.formatted(LIVE_ANT));
    return dir;
  }

  private static final String[] STATES = {"running", "waiting", "cooling_down", "paused", "parked", "spawning"};

  /** Ant-shaped executions {@code from}..{@code to}-1 with search attributes and a card; nobody runs them. */
  private static void startShaped(Cluster c, int from, int to) throws Exception {
    startShaped(c, from, to, 0);
  }

  /**
   * {@link #startShaped(Cluster, int, int)}, with every {@code needHumanEvery}-th ant (0: none)
   * parked and waiting for a human since an hour ({@code AntNeedsHuman}, its card's reason), as
   * the inbox lists them.
   */
  static void startShaped(Cluster c, int from, int to, int needHumanEvery) throws Exception {
    long now = System.currentTimeMillis();
    List<AntCard.DayCost> ledger = new ArrayList<>();
    for (int d = 29; d >= 0; d--) {
      ledger.add(new AntCard.DayCost(LocalDate.now(ZoneOffset.UTC).minusDays(d).toString(), 0.5 + (d % 7) * 0.3, 3));
    }
    List<AntCard.SessionRecord> recent = new ArrayList<>();
    for (int s = 1; s <= 5; s++) {
      recent.add(new AntCard.SessionRecord(s, now - s * 600_000L, now - s * 600_000L + 300_000, "success",
          "fixed the flaky test in module " + s, 40, 400_000, 20_000, 1.1, "run-" + s));
    }
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      List<Future<?>> started = new ArrayList<>();
      for (int i = from; i < to; i++) {
        int n = i;
        started.add(pool.submit(() -> {
          String name = String.format(Locale.ROOT, "ant-%05d", n);
          boolean needsHuman = needHumanEvery > 0 && n % needHumanEvery == 0;
          String state = needsHuman ? "parked" : STATES[n % STATES.length];
          boolean paused = state.equals("paused");
          AntCard card = new AntCard(AntCard.VERSION, 1, state, now - n * 1000L, "session 9 running",
              needsHuman ? "parked" : null, needsHuman ? now - 3_600_000L : null,
              needsHuman ? "parked after 3 failed sessions in a row" : null, 9, state.equals("running"), now - 60_000, 3,
              1.25, 26.5, 5.0, 50.0, "UTC", null, null, ledger, recent, List.of(), List.of(), 0);
          SearchAttributes sa = SearchAttributes.newBuilder()
              .set(AntSearchAttributes.COLONY, COLONY).set(AntSearchAttributes.ANT, name)
              .set(AntSearchAttributes.STATE, state).set(AntSearchAttributes.PAUSED, paused)
              .set(AntSearchAttributes.NEEDS_HUMAN, needsHuman).set(AntSearchAttributes.SESSIONS, 9L)
              .set(AntSearchAttributes.ERRORS, 0L).set(AntSearchAttributes.QUEUE, 0L)
              .set(AntSearchAttributes.UPDATED_AT, OffsetDateTime.ofInstant(Instant.ofEpochMilli(now), ZoneOffset.UTC))
              .build();
          WorkflowOptions options = WorkflowOptions.newBuilder().setWorkflowId("ant/" + COLONY + "/" + name)
              .setTaskQueue("nobody-polls-this").setTypedSearchAttributes(sa)
              .setMemo(Map.of(AntCard.MEMO_KEY, card)).build();
          c.client.newUntypedWorkflowStub("AntWorkflow", options).start();
          return null;
        }));
      }
      for (Future<?> f : started) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
  }

  private static int total(String url) {
    try {
      HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url + "/api/colony"))
          .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
      return JSON.readTree(r.body()).path("counts").path("total").asInt();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String paintRow(Path tmp, String url, int n, long startMs) throws Exception {
    WebDriver browser = Chromium.start(tmp, 1400, 1000);
    try {
      browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(60));
      List<Double> runs = new ArrayList<>();
      for (int i = 0; i <= PAINT_RUNS; i++) {
        browser.get("about:blank");
        browser.get(url + "/");
        Object t = ((JavascriptExecutor) browser).executeAsyncScript("""
            const done = arguments[arguments.length - 1];
            (function check() {
              if (document.querySelector('a[href^="/ants/"]')) done(performance.now());
              else requestAnimationFrame(check);
            })();""");
        runs.add(((Number) t).doubleValue());
      }
      if (n == 10_000) {
        Chromium.screenshot(browser, "bench-console", "overview-10000");
      }
      double cold = runs.get(0);
      List<Double> warm = new ArrayList<>(runs.subList(1, runs.size()));
      Collections.sort(warm);
      double limit = n <= 1_000 ? 1_000 : 2_000;
      String target = (n <= 1_000 ? "< 1 s" : "< 2 s") + (warm.get(warm.size() / 2) < limit ? "" : " **missed**");
      return String.format(Locale.ROOT, "| %,d (+1 live; started in %,d ms) | %,.0f ms | %,.0f ms (%,.0f–%,.0f) | %s |", n,
          startMs, cold, warm.get(warm.size() / 2), warm.get(0), warm.get(warm.size() - 1), target);
    } finally {
      browser.quit();
    }
  }

  /**
   * The costs of every ant (running or stopped): {@code /api/costs} timed as a client reads it, with
   * its count of ants, and a fresh load of {@code /costs} in Chromium until its summary names them.
   */
  private static String costs(Path tmp, String url, int ants) throws Exception {
    List<Long> api = new ArrayList<>();
    int listed = 0;
    for (int i = 0; i <= PAINT_RUNS; i++) {
      long t0 = System.nanoTime();
      HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url + "/api/costs?days=30"))
          .timeout(Duration.ofSeconds(120)).build(), HttpResponse.BodyHandlers.ofString());
      api.add((System.nanoTime() - t0) / 1_000_000);
      listed = JSON.readTree(r.body()).path("ants").size();
    }
    List<Long> warmApi = new ArrayList<>(api.subList(1, api.size()));
    Collections.sort(warmApi);
    WebDriver browser = Chromium.start(tmp, 1400, 1000);
    List<Double> paint = new ArrayList<>();
    try {
      browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(120));
      for (int i = 0; i <= PAINT_RUNS; i++) {
        browser.get("about:blank");
        browser.get(url + "/costs");
        Object t = ((JavascriptExecutor) browser).executeAsyncScript("""
            const done = arguments[arguments.length - 1];
            (function check() {
              const s = document.getElementById('summary');
              if (s && / ants? · /.test(s.textContent)) done(performance.now());
              else requestAnimationFrame(check);
            })();""");
        paint.add(((Number) t).doubleValue());
      }
      Chromium.screenshot(browser, "bench-console", "costs-10000");
    } finally {
      browser.quit();
    }
    List<Double> warm = new ArrayList<>(paint.subList(1, paint.size()));
    Collections.sort(warm);
    return "`/api/costs?days=30` read by a client (every ant, running or stopped, one row each), and a fresh load of "
        + "`/costs` in headless Chromium until its summary names the ants. 1 cold and " + PAINT_RUNS + " warm runs.\n\n"
        + "| ants | ants listed | `/api/costs` cold | warm median (min–max) | page cold | page warm median | target |\n"
        + "|---|---|---|---|---|---|---|\n"
        + String.format(Locale.ROOT, "| %,d | %,d%s | %,d ms | %,d ms (%,d–%,d) | %,.0f ms | %,.0f ms | < 2 s%s |", ants, listed,
            listed >= ants ? "" : " **(missing ants)**", api.get(0), warmApi.get(warmApi.size() / 2), warmApi.get(0),
            warmApi.get(warmApi.size() - 1), paint.get(0), warm.get(warm.size() / 2),
            warm.get(warm.size() / 2) < 2_000 ? "" : " **missed**");
  }

  /** Pause and resume signals to the live ant; the open overview's row is watched in the page. */
  private static String latency(Path tmp, Cluster c, String url) throws Exception {
    WebDriver browser = Chromium.start(tmp, 1400, 1000);
    StringBuilder sb = new StringBuilder();
    try {
      browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(30));
      for (String page : List.of("/?q=" + LIVE_ANT, "/ants/" + LIVE_ANT)) {
        browser.get(url + page);
        Eventually.eventually(Duration.ofSeconds(60), () -> pageSays(browser, LIVE_ANT), "the live ant on " + page);
        ((JavascriptExecutor) browser).executeScript("""
            window.__seen = [];
            const look = () => {
              const t = document.body.innerText;
              const rows = [...document.querySelectorAll('tr')].filter(r => r.innerText.includes(arguments[0]));
              const text = %s;
              const paused = /\\bpaused\\b/.test(text);
              if (paused !== window.__last) { window.__last = paused; window.__seen.push([Date.now(), paused]); }
            };
            new MutationObserver(look).observe(document.body, {subtree: true, childList: true, characterData: true});
            look();""".formatted(page.startsWith("/?") ? "rows.length ? rows[0].innerText : ''"
            : "(document.querySelector('#head .badge') || {innerText: ''}).innerText"), LIVE_ANT);
        List<Long> ms = new ArrayList<>();
        for (int i = 0; i < SIGNALS; i++) {
          boolean pause = i % 2 == 0;
          int seenBefore = seen(browser).size();
          long sent = System.currentTimeMillis();
          c.client.newUntypedWorkflowStub("ant/" + COLONY + "/" + LIVE_ANT).signal(pause ? "pause" : "resume");
          Eventually.eventually(Duration.ofSeconds(30), () -> seen(browser).size() > seenBefore
              && (Boolean) seen(browser).get(seen(browser).size() - 1).get(1) == pause, "the page to show the change");
          List<List<Object>> seen = seen(browser);
          ms.add(((Number) seen.get(seen.size() - 1).get(0)).longValue() - sent);
        }
        Collections.sort(ms);
        long p99 = ms.get((int) Math.ceil(ms.size() * 0.99) - 1);
        sb.append(String.format(Locale.ROOT, "| %s | %d | %,d ms | %,d ms | %,d ms | p99 < 1 s%s |%n",
            page.startsWith("/?") ? "overview (`/?q=" + LIVE_ANT + "`), 10,001 ants" : "ant page (`/ants/" + LIVE_ANT + "`)", SIGNALS,
            ms.get(ms.size() / 2), p99, ms.get(ms.size() - 1), p99 < 1_000 ? "" : " **missed**"));
      }
    } finally {
      browser.quit();
    }
    return "`pause` and `resume` signals in turn (" + SIGNALS + " per page) sent with a Temporal client, as `colony pause` "
        + "does; the time is from the call to the moment the open page showed the change (a MutationObserver in the page, "
        + "same machine clock). The overview learns it from visibility (one poller for all viewers); the ant page from its "
        + "history stream.\n\n| page | signals | p50 | p99 | max | target |\n|---|---|---|---|---|---|\n" + sb;
  }

  private static boolean pageSays(WebDriver browser, String text) {
    return String.valueOf(((JavascriptExecutor) browser).executeScript("return document.body.innerText;")).contains(text);
  }

  @SuppressWarnings("unchecked")
  private static List<List<Object>> seen(WebDriver browser) {
    return (List<List<Object>>) ((JavascriptExecutor) browser).executeScript("return window.__seen;");
  }

  private static long calls(String url) {
    return metric(url, "temporalCalls");
  }

  /** One figure of the console's {@code /api/metrics}. */
  private static long metric(String url, String name) {
    try {
      HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url + "/api/metrics"))
          .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
      return JSON.readTree(r.body()).path(name).asLong();
    } catch (Exception e) {
      throw new IllegalStateException("reading " + name + " from the console", e);
    }
  }

  static long rssKb(Process p) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/" + p.pid() + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return -1;
  }

  private static String idleAndWatched(String url, Process console, Cluster c) throws Exception {
    StringBuilder sb = new StringBuilder("| watchers | calls to Temporal per minute | console RSS | target |\n|---|---|---|---|\n");
    // Nobody watching (the browsers are closed): the hub winds down, then a minute is counted.
    Eventually.eventually(Duration.ofSeconds(30), () -> metric(url, "viewers") == 0, "the closed pages' streams end");
    long a = calls(url);
    Thread.sleep(WINDOW.toMillis());
    long idle = calls(url) - a;
    sb.append(String.format(Locale.ROOT, "| none | %d | %,d MB | none |%n", idle, rssKb(console) / 1024));
    for (String stream : List.of("/api/events", "/api/events?ant=" + LIVE_ANT)) {
      HttpClient http = HttpClient.newHttpClient();
      List<CompletableFuture<HttpResponse<java.util.stream.Stream<String>>>> viewers = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        viewers.add(http.sendAsync(HttpRequest.newBuilder(URI.create(url + stream)).header("Accept", "text/event-stream").build(),
            HttpResponse.BodyHandlers.ofLines()));
      }
      List<Thread> readers = new ArrayList<>();
      for (var v : viewers) {
        readers.add(Thread.ofVirtual().start(() -> {
          try {
            v.get().body().forEach(line -> { });
          } catch (Exception ignored) {
            // the stream ends when the window closes
          }
        }));
      }
      Eventually.eventually(Duration.ofSeconds(30), () -> metric(url, "viewers") >= 10, "the ten watchers connected");
      long b = calls(url);
      Thread.sleep(WINDOW.toMillis());
      long watched = calls(url) - b;
      sb.append(String.format(Locale.ROOT, "| 10 on `%s` | %d | %,d MB | one stream for all |%n", stream, watched,
          rssKb(console) / 1024));
      http.shutdownNow();
      for (Thread t : readers) {
        t.interrupt();
      }
    }
    return "Counted by the console itself (`/api/metrics`, `temporalCalls`: every call it makes to Temporal) over one "
        + "minute; RSS from `/proc`. The watchers are ten server-sent-event streams held open by a client, on the colony "
        + "and on one ant.\n\n" + sb;
  }
}
