package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.colony.ant.AntStatus;
import dev.colony.ant.AntWorkflowImpl;
import dev.colony.ant.Lifecycle;
import io.temporal.common.WorkflowExecutionHistory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the fault tests ({@link FaultIT}, {@link ConnectionFaultIT}) share: each test its own
 * Temporal dev server (one smoke run on the in-memory server) in its own directory, and after it
 * the replay of every history it produced against the current workflow code (recorded as the
 * replay guard's baseline with {@code -Dcolony.recordHistories=true}), and the chat checks. Two
 * classes so that the integration tests' parallel forks can run them side by side.
 */
abstract class FaultScenario {
  static final Duration LONG = Duration.ofSeconds(60);
  /** The fixture's heartbeat_timeout. */
  static final long HEARTBEAT_MS = 3000;
  /** The SDK's default sticky schedule-to-start timeout (workers run with sticky queues on). */
  static final long STICKY_TIMEOUT_MS = 5000;

  @TempDir
  Path tmp;

  Cluster cluster;
  String testName;

  @BeforeEach
  void setUp(TestInfo info) throws Exception {
    testName = info.getTestMethod().orElseThrow().getName();
    // The real Temporal dev server with sticky queues on, as in production; one smoke run on the
    // in-memory server, which stays the fallback.
    cluster = new Cluster(tmp).startServer(info.getTags().contains("memory") ? "memory" : "dev");
  }

  @AfterEach
  void tearDown() throws Exception {
    try {
      replayAndMaybeRecord();
    } finally {
      cluster.close();
    }
  }

  private void replayAndMaybeRecord() throws Exception {
    boolean record = Boolean.getBoolean("colony.recordHistories");
    for (String ant : List.of("alpha", "beta", "gamma", "delta", "epsilon")) {
      List<WorkflowExecutionHistory> histories;
      try {
        histories = cluster.histories(ant);
      } catch (RuntimeException notStarted) {
        continue;
      }
      for (WorkflowExecutionHistory h : histories) {
        dev.colony.testing.Replay.history(h, AntWorkflowImpl.class);
        if (record) {
          Path dir = Path.of("../workflows/src/test/resources/histories/baseline-1.0");
          Files.createDirectories(dir);
          Files.writeString(dir.resolve("fault-" + testName + "-" + ant + ".json"), h.toJson(true));
        }
      }
    }
  }

  String line(String ant, String text) {
    return "[" + ant + "] " + text;
  }

  /** No post may appear twice: each text below is unique by construction (session numbers). */
  /**
   * How long after a copy of a post is seen a second copy may still come: a post in flight on a
   * killed worker is retried after its start-to-close timeout (the Outbox's 10 s) and the first
   * retry's interval (1 s), on a loaded machine.
   */
  static final Duration POST_RETRY_WINDOW = Duration.ofSeconds(15);

  /**
   * Each text is posted, and exactly once: every copy is awaited, then the chat is watched
   * through the whole retry window (a duplicate of a retried post comes late), not only until
   * the first copy is seen.
   */
  void assertEachPostOnce(String ant, String... texts) throws InterruptedException {
    for (String t : texts) {
      // Posts leave one at a time; one that was in flight on a killed worker is retried only
      // after its start-to-close timeout, so later ones may still be on their way.
      try {
        eventually(LONG, () -> cluster.count(line(ant, t)) >= 1, "posted: " + t);
      } catch (AssertionError notYet) {
        // reported below with the whole chat
      }
      assertEquals(1, cluster.count(line(ant, t)), "exactly once: " + t + "\n" + String.join("\n", cluster.chat()));
    }
    try {
      org.awaitility.Awaitility.await("each post once")
          .during(POST_RETRY_WINDOW)
          .atMost(POST_RETRY_WINDOW.plusSeconds(10))
          .pollInterval(Duration.ofMillis(250))
          .until(() -> java.util.Arrays.stream(texts).allMatch(t -> cluster.count(line(ant, t)) == 1));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      for (String t : texts) {
        assertEquals(1, cluster.count(line(ant, t)), "posted again within the retry window: " + t + "\n"
            + String.join("\n", cluster.chat()));
      }
      throw e;
    }
  }

  /** Posts carrying a session number are unique by construction: none may repeat. */
  void assertNoNumberedPostRepeats() {
    Map<String, Integer> seen = new HashMap<>();
    for (String l : cluster.chat()) {
      if (l.matches(".*(session \\d+|resets at \\d+).*") || l.contains("🐜")) {
        seen.merge(l, 1, Integer::sum);
      }
    }
    seen.forEach((l, n) -> assertEquals(1, n, "shown " + n + " times: " + l));
  }

  AntStatus status(String ant) {
    return cluster.status(ant);
  }

  void awaitState(String ant, Lifecycle state) throws InterruptedException {
    eventually(LONG, () -> status(ant).state() == state, "status(ant).state() == state");
  }

  long startsOf(String ant, int session) {
    return cluster.startsOf(ant, session);
  }
}
