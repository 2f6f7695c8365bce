package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static dev.colony.testing.Eventually.throughout;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * examples/mailbox on the real dev server: the scout messages the builder with {@code colony send}
 * from inside its session; the worker is SIGKILLed while the scout's session still runs, so a
 * second worker retries that session and it sends everything again. The builder still gets each
 * finding exactly once, in order. Bad sends get a clear error.
 */
@Timeout(600)
class MailboxExampleIT {
  private static final Path EXAMPLE = Path.of("../examples/mailbox").toAbsolutePath().normalize();

  @TempDir
  Path tmp;

  private Cluster cluster;

  @AfterEach
  void tearDown() throws Exception {
    Cluster.closeAll(cluster);
  }

  @Test
  void findingsReachTheBuilderOnceAndInOrderAcrossAWorkerKill() throws Exception {
    cluster = new Cluster(tmp, EXAMPLE).startServer("dev");
    Path inbox = cluster.dir.resolve("logs/inbox.log");
    Path bin = Cluster.JAR.getParent().resolve("bin/colony");
    // The scout lingers after sending, so the kill lands inside its session.
    Files.writeString(cluster.dir.resolve(".env"), "SCOUT_LINGER=20\n");
    // The scout's sandbox passes in only what its file grants: this test's knob too.
    Files.writeString(cluster.dir.resolve("ants/scout.yaml"), "sandbox:\n  secrets: [SCOUT_LINGER]\n",
        java.nio.file.StandardOpenOption.APPEND);
    Cluster.WorkerProcess first = cluster.startWorker("w1");
    Cluster.WorkerProcess second = null;
    try {
      cluster.cli("start", cluster.dir.toString());
      cluster.cli("send", "mailbox/scout", "go");
      eventually(Duration.ofSeconds(90), () -> Files.exists(inbox)
          && Cluster.read(inbox).lines().count() == 3, "Files.exists(inbox) && Cluster.read(inbox).lines().count() == 3");
      // The status of one ant is asked of its workflow with a 1.5 s deadline and read from
      // visibility (which learns of a session a little later) when the worker is slower than that:
      // asked until it says session 1 runs (the scout lingers 20 s in it).
      eventually(Duration.ofSeconds(15), () -> cluster.statusSays("mailbox/scout", "state:              running (session 1)"),
          "the scout's status says its session 1 runs");
      Cluster.kill9(first);
      second = cluster.startWorker("w2");
      Cluster.WorkerProcess w2 = second;
      // The retried session sends the same three findings again: same ids, dropped.
      eventually(Duration.ofSeconds(120), () -> {
        try {
          String s = cluster.cli("status", "mailbox/scout");
          return s.contains("sessions:           1") && s.contains("last outcome:       success");
        } catch (Exception e) {
          return false;
        }
      }, "{ try { String s = cluster.cli(\"status\", \"mailbox/scout\"); return s.contains(\"sessions:...");
      // A duplicate, had one got through, would reach the builder's inbox: none does for 3 s.
      throughout(Duration.ofSeconds(3), () -> Cluster.read(inbox).lines().count() <= 3,
          () -> "a finding delivered twice: " + Cluster.read(inbox));
      assertTrue(Cluster.read(w2.log()).contains("scout"), "the second worker ran the retried session");
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + cluster.diagnostics(), e);
    }
    // The scout sent everything twice (the retried attempt), the builder got it once.
    assertEquals(6, Cluster.read(cluster.dir.resolve("logs/scout-sent.log")).lines().count(),
        Cluster.read(cluster.dir.resolve("logs/scout-sent.log")));
    assertEquals(List.of("[message from ant scout] finding 1 from session 1",
        "[message from ant scout] finding 2 from session 1",
        "[message from ant scout] finding 3 from session 1"), Cluster.read(inbox).lines().toList());

    // Mistakes get one clear line and a non-zero exit.
    Cluster.CliRun unknown = cluster.cliRun("send", "--from", "scout", "nobody", "hello");
    assertNotEquals(0, unknown.code());
    assertTrue(unknown.out().contains("no running ant named 'nobody'"), unknown.out());
    Cluster.CliRun huge = cluster.cliRun("send", "--from", "scout", "builder", "x".repeat(20_000));
    assertNotEquals(0, huge.code());
    assertTrue(huge.out().contains("the message is 20,000 characters; an ant may send at most 16,000"), huge.out());
    Cluster.CliRun empty = cluster.cliRun("send", "--from", "scout", "builder", " ");
    assertNotEquals(0, empty.code());
    assertTrue(empty.out().contains("the message is empty"), empty.out());
    Cluster.CliRun self = cluster.cliRun("send", "--from", "builder", "mailbox/builder", "hi me");
    assertTrue(self.out().contains("an ant cannot send a message to itself"), self.out());
    assertTrue(!unknown.out().contains("Exception") && !huge.out().contains("\tat "), unknown.out() + huge.out());
    assertTrue(Files.isExecutable(bin), "the worker wrote a colony command for agents: " + bin);
  }
}
