package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static dev.colony.testing.Eventually.throughout;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The colony's figures of state come from one process: two {@code colony worker}s of one colony,
 * each with its own {@code --metrics-port}, on the real Temporal dev server. Scraping both
 * {@code /metrics} over HTTP, the {@code colony_ants} series (and the other colony gauges, read
 * from visibility: a running ant, one paused on billing) are on exactly one of them, the holder of
 * the colony's metrics lease, for several periods; the holder is killed with SIGKILL and, within
 * the lease's ttl plus one renewal plus one period, they are on the survivor.
 */
@Timeout(300)
class ColonyReporterIT {
  /** {@code LeasedConnection.DEFAULT_TTL}: the lease outlives a killed holder by this much. */
  static final Duration TTL = Duration.ofSeconds(15);
  static final Duration PERIOD = Duration.ofSeconds(2);

  @TempDir
  Path tmp;

  private Cluster cluster;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @AfterEach
  void tearDown() throws Exception {
    Cluster.closeAll(cluster);
  }

  /** The body of {@code GET /metrics} on {@code port}. */
  private String scrape(int port) {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode(), r.body());
      return r.body();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static boolean hasColonyAnts(String scrape) {
    return scrape.lines().anyMatch(l -> l.startsWith("colony_ants{"));
  }

  /** The value of {@code series} (as scraped: name and labels) in {@code scrape}, or null. */
  static Double value(String scrape, String series) {
    return scrape.lines().filter(l -> l.startsWith(series + " ")).findFirst()
        .map(l -> Double.parseDouble(l.substring(series.length() + 1).trim())).orElse(null);
  }

  private String diagnostics() {
    return "\n" + cluster.diagnostics();
  }

  @Test
  void theColonysGaugesAreOnExactlyOneWorkerAndMoveToTheSurvivorWhenTheHolderIsKilled() throws Exception {
    cluster = new Cluster(tmp).startServer("dev");
    cluster.mode("alpha", 1, "block");
    cluster.mode("beta", 1, "billing");
    int p1 = Cluster.freePort();
    int p2 = Cluster.freePort();
    String every = PERIOD.toSeconds() + "s";
    Cluster.WorkerProcess w1 = cluster.startWorker("w1", cluster.target(), "--metrics-port", Integer.toString(p1),
        "--metrics-state-every", every);
    Cluster.WorkerProcess w2 = cluster.startWorker("w2", cluster.target(), "--metrics-port", Integer.toString(p2),
        "--metrics-state-every", every);
    cluster.start("alpha", "beta");

    String running = "colony_ants{colony=\"fault\",state=\"running\"}";
    String billing = "colony_ants_needing_human{colony=\"fault\",reason=\"billing\"}";
    eventually(Duration.ofSeconds(90), () -> {
      String a = scrape(p1);
      String b = scrape(p2);
      String holder = hasColonyAnts(a) ? a : b;
      return hasColonyAnts(a) != hasColonyAnts(b) && Double.valueOf(1.0).equals(value(holder, running))
          && Double.valueOf(1.0).equals(value(holder, billing));
    }, () -> "one worker exports alpha running and beta paused on billing:\n" + scrape(p1) + "\n----\n" + scrape(p2)
        + diagnostics());
    boolean firstHolds = hasColonyAnts(scrape(p1));
    int holderPort = firstHolds ? p1 : p2;
    int otherPort = firstHolds ? p2 : p1;
    Cluster.WorkerProcess holder = firstHolds ? w1 : w2;
    String h = scrape(holderPort);
    assertEquals(1.0, value(h, "colony_reporter_leader{colony=\"fault\"}"));
    assertEquals(0.0, value(scrape(otherPort), "colony_reporter_leader{colony=\"fault\"}"));
    assertEquals(11, h.lines().filter(l -> l.startsWith("colony_ants{")).count(), "every lifecycle state: " + h);
    assertTrue(value(h, "colony_ant_needs_human_since_seconds{ant=\"beta\",colony=\"fault\",reason=\"billing\"}") != null,
        h);
    assertEquals(2.0, value(h, "colony_task_queue_pollers{colony=\"fault\",task_queue=\"" + cluster.queue() + "\"}"), h);
    assertTrue(value(h, "colony_reporter_last_success_timestamp_seconds{colony=\"fault\"}") != null, h);
    // Instructions wait in the mailbox of the ant whose session runs (a message to the ant paused on
    // billing would wake it): the colony's queued messages.
    cluster.cli("send", "alpha", "one");
    cluster.cli("send", "alpha", "two");
    eventually(Duration.ofSeconds(30), () -> Double.valueOf(2.0).equals(
        value(scrape(holderPort), "colony_mailbox_messages{colony=\"fault\"}")), () -> "two messages queued:\n"
        + scrape(holderPort));
    // Several periods and lease renewals: still exactly one exporter.
    throughout(PERIOD.multipliedBy(4), () -> hasColonyAnts(scrape(holderPort)) && !hasColonyAnts(scrape(otherPort)),
        () -> "two exporters, or none:\n" + scrape(p1) + "\n----\n" + scrape(p2));

    long killedAt = System.nanoTime();
    Cluster.kill9(holder);
    // The lease runs out a ttl after the holder's last renewal (at most ttl / 3 before the kill);
    // the survivor asks every ttl / 3 and reads at once when it holds.
    Duration bound = TTL.plus(TTL.dividedBy(3)).plus(PERIOD).plusSeconds(5);
    eventually(bound.plusSeconds(30), () -> Double.valueOf(1.0).equals(value(scrape(otherPort), running)),
        () -> "the survivor exports the colony's gauges:\n" + scrape(otherPort) + diagnostics());
    Duration gap = Duration.ofNanos(System.nanoTime() - killedAt);
    System.out.println("ColonyReporterIT: the survivor exported the colony's figures " + gap.toMillis()
        + " ms after the holder was killed (bound " + bound.toMillis() + " ms)");
    assertTrue(gap.compareTo(bound) <= 0, "the survivor took " + gap + " (bound " + bound + ")");
    String s = scrape(otherPort);
    assertEquals(1.0, value(s, "colony_reporter_leader{colony=\"fault\"}"));
    assertEquals(1.0, value(s, billing), s);
    assertEquals(2.0, value(s, "colony_mailbox_messages{colony=\"fault\"}"), s);
  }
}
