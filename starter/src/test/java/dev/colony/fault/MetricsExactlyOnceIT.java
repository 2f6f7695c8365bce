package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static dev.colony.testing.Eventually.throughout;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.visibility.AntSearchAttributes;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Counters from workflow code count each session once, whichever worker runs the ant, across a
 * worker killed with {@code kill -9} and the replay that follows: two {@code colony worker} processes
 * on one colony (each its own {@code --metrics-port}) on the real Temporal dev server, a
 * {@code command} ant that runs sessions, and the sum over the workers' scrapes of
 * {@code colony_sessions_total} and {@code colony_sessions_started_total} for that ant compared with
 * the ant's own count of its sessions (its status, and its {@code AntSessions} search attribute).
 *
 * <p>Why the comparison is exact, and when it is made:
 * <ul>
 *   <li>Only once the ant is settled: paused, and its lifecycle state {@code PAUSED} (a pause asked
 *       during a session lets that session end first: {@code paused()} alone can be true while one
 *       more session is still to be counted). Settled, no session starts or ends, so no session
 *       counter can move; started equals ended (none is running).
 *   <li>A worker's registry gets what its Tally scope counted once a second
 *       ({@code Metrics.REPORT_EVERY}): the scrapes are polled until the sums equal the ant's count,
 *       within a bound (a count that is too high never comes down: it fails at the bound, with every
 *       scrape in the message), and then must stay equal for a few seconds more.
 *   <li>A killed process's counters vanish with it. The worker is killed only while the ant is
 *       settled and the sums were equal: what its last scrape showed is then all it ever counted
 *       for the ant (nothing can move while the ant is settled), so after the kill the ant's count
 *       must equal the live workers' sums plus that last scrape. Killing the worker between
 *       workflow tasks is what makes this exact; a kill inside a workflow task, after its counters
 *       were flushed and before the task completed, would count that task's facts again on the
 *       worker that redoes it (the one window docs/observability.md names).
 *   <li>The worker that had the ant in its cache is the one killed: the next worker to run a task
 *       of the ant replays its whole history (every session so far) before going on. A replay that
 *       counted would show as the killed worker's sessions counted a second time.
 *   <li>The third worker runs with {@code --cache-size 1} while a second ant runs too; once the other
 *       first worker is killed as well (settled, like the first), it runs both ants alone: each
 *       evicts the other from its cache, so their workflow tasks are replays of their whole
 *       histories (the sticky cache eviction path, which its {@code temporal_sticky_cache_*}
 *       series show); both ants' counts are checked the same way.
 * </ul>
 *
 * <p>With a replay that counted, the killed worker's sessions are counted again by the next
 * worker: the sums come out above the ant's count (seen by making {@code AntMetrics} count on the
 * scope under the replay-aware one: {@code w2} counted 8 of 8 sessions plus the killed worker's 4).
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class MetricsExactlyOnceIT {
  private static final Duration LONG = Duration.ofSeconds(90);
  /** How long the sums get to reach the ant's count: several of the scope's 1 s reports, on a loaded machine. */
  private static final Duration SETTLE = Duration.ofSeconds(30);
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @TempDir
  Path tmp;

  private Cluster cluster;

  @AfterEach
  void tearDown() throws Exception {
    Cluster.closeAll(cluster);
  }

  /** A worker and where its metrics are served. */
  private record Worker(Cluster.WorkerProcess process, int port) {}

  @Test
  void sessionsAreCountedOnceAcrossWorkersKillsAndReplays() throws Exception {
    cluster = new Cluster(tmp).startServer("dev");
    Map<String, Worker> live = new LinkedHashMap<>();
    for (String name : new String[] {"w1", "w2"}) {
      live.put(name, startWorker(name));
    }
    // Phase 1: two workers, one ant, a few sessions.
    cluster.start("alpha");
    eventually(LONG, () -> cluster.status("alpha").sessions() >= 4, "alpha ran 4 sessions");
    long alpha = settle("alpha");
    Map<String, Counts> scraped = awaitExact("alpha", live, Counts.NONE, alpha);

    // The worker that counted the sessions is the one whose workflow tasks ran them: kill it.
    String runner = scraped.entrySet().stream().max(Map.Entry.comparingByValue(
        java.util.Comparator.comparingDouble(Counts::ended))).orElseThrow().getKey();
    assertTrue(scraped.get(runner).ended() > 0, "a worker counted alpha's sessions: " + scraped);
    Counts goneAlpha = scraped.get(runner);
    Cluster.kill9(live.remove(runner).process());

    // Phase 2: a third worker with room for one ant only; the ant goes on, and a second ant runs.
    live.put("w3", startWorker("w3", "--cache-size", "1"));
    cluster.ant("alpha").resume();
    cluster.start("beta");
    long before = alpha;
    eventually(LONG, () -> cluster.status("alpha").sessions() >= before + 4, "alpha ran 4 more sessions");
    eventually(LONG, () -> cluster.status("beta").sessions() >= 4, "beta ran 4 sessions");
    alpha = settle("alpha");
    long beta = settle("beta");
    Map<String, Counts> alphaScraped = awaitExact("alpha", live, goneAlpha, alpha);
    Map<String, Counts> betaScraped = awaitExact("beta", live, Counts.NONE, beta);

    // Phase 3: the other first worker killed too, settled like the first; the third alone runs both
    // ants in a cache of one, so each switch from one ant to the other evicts and replays.
    String other = live.keySet().stream().filter(n -> !n.equals("w3")).findFirst().orElseThrow();
    goneAlpha = goneAlpha.plus(alphaScraped.get(other));
    Counts goneBeta = betaScraped.get(other);
    Cluster.kill9(live.remove(other).process());
    String misses = "temporal_sticky_cache_miss_total";
    double missedBefore = sum(scrape(live.get("w3").port()), misses);
    cluster.ant("alpha").resume();
    cluster.ant("beta").resume();
    long alphaBefore = alpha;
    long betaBefore = beta;
    eventually(LONG, () -> cluster.status("alpha").sessions() >= alphaBefore + 3, "alpha ran 3 more sessions");
    eventually(LONG, () -> cluster.status("beta").sessions() >= betaBefore + 3, "beta ran 3 more sessions");
    alpha = settle("alpha");
    beta = settle("beta");
    awaitExact("alpha", live, goneAlpha, alpha);
    awaitExact("beta", live, goneBeta, beta);
    // The eviction path was taken: besides loading each ant once, the third worker had to replay an
    // ant it had evicted for the other (a task of an ant not in its cache is a miss, and a replay).
    eventually(SETTLE, () -> sum(scrape(live.get("w3").port()), misses) - missedBefore > 2,
        () -> "w3 replayed an evicted ant (misses before this phase: " + missedBefore + "):\n"
            + scrape(live.get("w3").port()).lines().filter(l -> l.startsWith("temporal_sticky"))
                .collect(java.util.stream.Collectors.joining("\n")));
  }

  /** The sum of a series' values in one scrape, over its labels. */
  static double sum(String body, String series) {
    return body.lines().filter(l -> l.startsWith(series + "{") || l.startsWith(series + " "))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
  }

  /**
   * Pauses the ant, waits until it is settled (state {@code PAUSED}, nothing running) and answers
   * its session count, which its search attribute shows too.
   */
  private long settle(String ant) throws Exception {
    cluster.ant(ant).pause();
    cluster.awaitSettledPaused(ant);
    long sessions = cluster.status(ant).sessions();
    eventually(LONG, () -> {
      var attributes = cluster.client.newUntypedWorkflowStub("ant/" + cluster.colonyName + "/" + ant)
          .describe().getTypedSearchAttributes();
      Long shown = attributes.get(AntSearchAttributes.SESSIONS);
      return shown != null && shown == sessions;
    }, () -> ant + "'s AntSessions search attribute shows " + sessions);
    return sessions;
  }

  /** What a scrape shows of one ant: sessions started and ended (every outcome). */
  record Counts(double started, double ended) {
    static final Counts NONE = new Counts(0, 0);

    Counts plus(Counts o) {
      return new Counts(started + o.started, ended + o.ended);
    }
  }

  /**
   * Polls every live worker's {@code /metrics} until the sums for {@code ant} (plus {@code gone}, what a
   * killed worker had counted) equal {@code sessions}, then checks they stay so; answers the last
   * scrapes by worker.
   */
  private Map<String, Counts> awaitExact(String ant, Map<String, Worker> live, Counts gone, long sessions) {
    var last = new java.util.concurrent.atomic.AtomicReference<Map<String, Counts>>(Map.of());
    var bodies = new java.util.concurrent.atomic.AtomicReference<String>("");
    java.util.function.BooleanSupplier exact = () -> {
      Map<String, Counts> now = new LinkedHashMap<>();
      StringBuilder all = new StringBuilder();
      Counts sum = gone;
      for (var e : live.entrySet()) {
        String body = scrape(e.getValue().port());
        all.append("==== ").append(e.getKey()).append('\n');
        body.lines().filter(l -> l.startsWith("colony_sessions") && l.contains("ant=\"" + ant + "\""))
            .forEach(l -> all.append(l).append('\n'));
        Counts c = counts(body, ant);
        now.put(e.getKey(), c);
        sum = sum.plus(c);
      }
      last.set(now);
      bodies.set(all.toString());
      return sum.started() == sessions && sum.ended() == sessions;
    };
    java.util.function.Supplier<String> detail = () -> ant + " ran " + sessions + " sessions; the scrapes count "
        + last.get() + (gone.equals(Counts.NONE) ? "" : " plus the killed worker's " + gone) + "\n" + bodies.get()
        + cluster.diagnostics();
    eventually(SETTLE, exact, detail);
    // Nothing more may come: a late count (a replay counting again) would show here.
    throughout(Duration.ofSeconds(3), exact, detail);
    return last.get();
  }

  /** The ant's sessions started and ended (summed over outcomes) in one scrape. */
  static Counts counts(String body, String ant) {
    double started = 0;
    double ended = 0;
    for (String line : body.lines().toList()) {
      if (line.startsWith("#") || !line.contains("ant=\"" + ant + "\"")) {
        continue;
      }
      double value = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      if (line.startsWith("colony_sessions_started_total{")) {
        started += value;
      } else if (line.startsWith("colony_sessions_total{")) {
        ended += value;
      }
    }
    return new Counts(started, ended);
  }

  private Worker startWorker(String name, String... extra) throws Exception {
    int port = Cluster.freePort();
    String[] args = new String[extra.length + 2];
    args[0] = "--metrics-port";
    args[1] = Integer.toString(port);
    System.arraycopy(extra, 0, args, 2, extra.length);
    Cluster.WorkerProcess p = cluster.startWorker(name, cluster.target(), args);
    assertTrue(Cluster.read(p.log()).contains("metrics on http://127.0.0.1:" + port + "/metrics"), Cluster.read(p.log()));
    return new Worker(p, port);
  }

  private static String scrape(int port) {
    try {
      HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
          .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode(), r.body());
      return r.body();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
