package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static dev.colony.testing.Eventually.throughout;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.ant.AntStatus;
import dev.colony.ant.Lifecycle;
import dev.colony.mailbox.Mail;
import dev.colony.worker.ColonyWorker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The other half of the fault tests ({@link FaultIT}): the connection to Temporal fails. The
 * Temporal server itself is killed mid-session and comes back, the network to it is cut for 30 s,
 * and it goes away in the middle of a CLI command. Nothing may be lost or shown twice, and the
 * histories replay against the current workflow code.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ConnectionFaultIT extends FaultScenario {
  @Test
  void aThirtySecondConnectionLossHealsByItselfWithNothingLost() throws Exception {
    try (TcpProxy proxy = new TcpProxy(cluster.port)) {
      Cluster.WorkerProcess worker = cluster.startWorker("proxied", proxy.address());
      cluster.start("gamma");
      eventually(LONG, () -> status("gamma").sessions() >= 2, "status(\"gamma\").sessions() >= 2");
      proxy.down();
      int before = cluster.starts("gamma").size();
      // signals sent during the outage reach the server directly and wait there
      cluster.ant("gamma").message(Mail.of("sent during the outage"));
      // the outage lasts 30 s, and the worker lives through all of it
      throughout(Duration.ofSeconds(30), () -> worker.process().isAlive(),
          () -> "the worker died during the outage: " + Cluster.read(worker.log()));
      proxy.up();
      eventually(Duration.ofSeconds(150), () -> cluster.starts("gamma").size() >= before + 3, "cluster.starts(\"gamma\").size() >= before + 3");
      assertTrue(worker.process().isAlive(), "the worker reconnected by itself");
      int deliveredIn = 0;
      for (Cluster.Start s : cluster.starts("gamma")) {
        if (cluster.prompt("gamma", s.session()).contains("sent during the outage")) {
          deliveredIn++;
        }
      }
      assertTrue(deliveredIn >= 1, "the message sent during the outage was lost");
      eventually(LONG, () -> status("gamma").queueDepth() == 0, "status(\"gamma\").queueDepth() == 0");
      assertNoNumberedPostRepeats();
    }
  }

  /**
   * {@code colony status ANT} when the server goes away in the middle of the command: it answers
   * at once with the cause (it used to sit a minute in the SDK's retry loop, or blame TLS).
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 2, unit = TimeUnit.MINUTES)
  void statusOfOneAntAnswersAtOnceWhenTheServerDiesMidCommand() throws Exception {
    cluster.start("alpha"); // no worker: status reads its row from visibility
    // status fault/alpha makes three calls (connect, the worker check, the describe): the server
    // dies at each of them in turn.
    for (int calls : new int[] {0, 1, 2}) {
      try (TcpProxy proxy = new TcpProxy(cluster.port)) {
        proxy.downAfterCalls(calls);
        Path log = tmp.resolve("status-cut-" + calls + ".log");
        Process p = Cluster.oneShot("status", "fault/alpha", "--address", proxy.address())
            .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        // Not a speed check: a wait of a minute against an answer (the JVM start is in the bound).
        boolean answered = p.waitFor(10, TimeUnit.SECONDS);
        p.destroyForcibly();
        String out = Files.readString(log);
        assertTrue(answered, "cut after " + calls + " call(s): no answer within 10 s: " + out);
        assertEquals(1, p.exitValue(), "cut after " + calls + " call(s): " + out);
        assertTrue(out.startsWith("colony: ") && out.lines().count() == 1, "cut after " + calls + " call(s): " + out);
        assertFalse(out.contains("TLS"), "cut after " + calls + " call(s): the server went away, TLS is not the cause: " + out);
        assertTrue(out.contains("Temporal at " + proxy.address()), "cut after " + calls + " call(s): " + out);
      }
    }
  }

  /**
   * The same for the commands that send a signal ({@code pause}, and {@code resume}, {@code send},
   * {@code stop}... through the same call): the server goes away at each call of {@code pause} in
   * turn; the command ends within its bound with the cause, not after the SDK's minute of retries.
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 3, unit = TimeUnit.MINUTES)
  void pauseAnswersWithinItsBoundWhenTheServerDiesMidCommand() throws Exception {
    cluster.start("alpha"); // no worker: the signal waits in Temporal
    // pause fault/alpha: connect, the signal; pause alpha: connect, the name's lookup, the signal.
    for (String[] run : List.of(new String[] {"fault/alpha", "0"}, new String[] {"fault/alpha", "1"},
        new String[] {"alpha", "1"}, new String[] {"alpha", "2"})) {
      String what = "pause " + run[0] + " cut after " + run[1] + " call(s)";
      try (TcpProxy proxy = new TcpProxy(cluster.port)) {
        proxy.downAfterCalls(Integer.parseInt(run[1]));
        Path log = tmp.resolve("pause-cut-" + run[0].replace('/', '-') + "-" + run[1] + ".log");
        Process p = Cluster.oneShot("pause", run[0], "--address", proxy.address())
            .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        // The bound is Ants.SIGNAL_WITHIN (10 s) and the JVM's start; the SDK alone retried for a minute.
        boolean answered = p.waitFor(20, TimeUnit.SECONDS);
        p.destroyForcibly();
        String out = Files.readString(log);
        assertTrue(answered, what + ": no answer within 20 s: " + out);
        assertEquals(1, p.exitValue(), what + ": " + out);
        assertTrue(out.startsWith("colony: ") && out.lines().count() == 1, what + ": " + out);
        assertFalse(out.contains("TLS"), what + ": the server went away, TLS is not the cause: " + out);
        assertTrue(out.contains("Temporal at " + proxy.address()), what + ": " + out);
      }
    }
  }

  @Test
  void theTemporalServerItselfKilledMidSessionComesBackWithEveryAntWhereItWas() throws Exception {
    Cluster.WorkerProcess worker = cluster.startWorker("only");
    cluster.mode("alpha", 2, "block");
    cluster.start("alpha", "delta");
    eventually(LONG, () -> startsOf("alpha", 2) >= 1, "startsOf(\"alpha\", 2) >= 1");
    eventually(LONG, () -> status("delta").sessions() >= 2, "status(\"delta\").sessions() >= 2");
    // During alpha's session: a message (queued) and a pause (takes effect after the session).
    cluster.ant("alpha").message(Mail.of("queued before the crash"));
    cluster.ant("alpha").pause();
    eventually(LONG, () -> status("alpha").paused() && status("alpha").queueDepth() == 1, "status(\"alpha\").paused() && status(\"alpha\").queueDepth() == 1");
    int deltaSessions = status("delta").sessions();

    cluster.killServer(); // kill -9 of colony server; the dev server dies with it
    Thread.sleep(2000); // not a wait: how long the server stays down (a simulated outage)
    cluster.startServer(); // same port, same SQLite file

    // The in-flight session is still the same session (its attempt may be retried once if the
    // heartbeat deadline passed while the server was down); the pause and the message are kept.
    // Running: announced before the crash, or (if the crash came within its first second) after.
    eventually(LONG, () -> status("alpha").state() == Lifecycle.RUNNING, "status(\"alpha\").state() == Lifecycle.RUNNING");
    AntStatus alpha = status("alpha");
    assertEquals(1, alpha.sessions());
    assertTrue(alpha.paused(), "the pause survived");
    assertEquals(1, alpha.queueDepth(), "the queued message survived");
    assertTrue(status("delta").sessions() >= deltaSessions);

    cluster.release("alpha", 2);
    awaitState("alpha", Lifecycle.PAUSED);
    assertEquals(2, status("alpha").sessions());
    cluster.ant("alpha").resume();
    eventually(LONG, () -> status("alpha").sessions() >= 3 && status("alpha").queueDepth() == 0, "status(\"alpha\").sessions() >= 3 && status(\"alpha\").queueDepth() == 0");
    assertTrue(cluster.prompt("alpha", 3).contains("queued before the crash"), cluster.prompt("alpha", 3));
    eventually(LONG, () -> status("delta").sessions() >= deltaSessions + 2, "status(\"delta\").sessions() >= deltaSessions + 2");
    assertEachPostOnce("alpha", "🐜 **alpha** is starting up.", "✅ **alpha** finished session 2: released session 2",
        "⏸️ **alpha** paused.", "▶️ **alpha** resuming.");
    assertEachPostOnce("delta", "🐜 **delta** is starting up.");
    assertNoNumberedPostRepeats();
    // The worker said it lost the server and got it back, one line each, and nothing else:
    // no stack trace per failed poll (there used to be thousands). The watch that says "connected"
    // looks every few seconds, so the ants may be back before it speaks: wait for its line.
    eventually(LONG, () -> Cluster.read(worker.log()).lines().anyMatch(l -> l.startsWith("colony: connected to Temporal at ")), "Cluster.read(worker.log()).lines().anyMatch(l -> l.startsWith(\"colony: connected to Tem...");
    List<String> other = Cluster.read(worker.log()).lines().filter(l -> !l.startsWith("[")).toList();
    assertEquals(1, other.stream().filter(l -> l.startsWith("colony: lost the connection to Temporal at ")).count(),
        String.join("\n", other));
    assertEquals(1, other.stream().filter(l -> l.startsWith("colony: connected to Temporal at ")).count(),
        String.join("\n", other));
    assertTrue(other.size() <= 6, other.size() + " lines besides the chat:\n" + String.join("\n", other));

    // The server gone for good, a SIGTERM stops the worker at once: it does not wait out the
    // activities' grace (10 s) on calls that cannot reach anyone (it used to take longer still).
    cluster.killServer();
    worker.process().destroy();
    assertTrue(worker.process().waitFor(ColonyWorker.SHUTDOWN_GRACE.toSeconds() - 2, TimeUnit.SECONDS),
        "the worker did not stop within 8 s of SIGTERM with its server gone:\n" + Cluster.read(worker.log()));
    cluster.startServer(); // for the replay check after the test
  }
}
