package dev.colony.overseer.impl;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.ant.AntRun;
import dev.colony.ant.AntStatus;
import dev.colony.ant.AntWorkflow;
import dev.colony.ant.AntWorkflowImpl;
import dev.colony.ant.Lifecycle;
import dev.colony.chat.ChatPost;
import dev.colony.chat.impl.ChatActivitiesImpl;
import dev.colony.config.ColonyLoader;
import dev.colony.secrets.Secrets;
import dev.colony.session.impl.SessionActivitiesImpl;
import dev.colony.workspace.impl.WorkspaceActivitiesImpl;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The overseer through the whole stack: a colony directory read by the real loader, the
 * ant's workflow, the real session activity running a command agent that reports its turns and
 * reads its whisper file, and the real evaluation activity calling a loopback fake of the
 * Anthropic API through the Anthropic SDK with scripted verdicts. One session: OK stays quiet; a
 * SPIRALING whispers; a refused call is skipped; OK resets the ladder; then whisper, stronger
 * whisper, escalation and the pause.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class OverseerEndToEndTest {
  @TempDir
  Path dir;

  private TestWorkflowEnvironment env;
  private final List<String> posts = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    if (env != null) {
      env.close();
    }
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (java.io.IOException e) {
      return e.toString();
    }
  }

  @Test
  void okWhisperSkippedResetThenWhisperWhisperEscalate() throws Exception {
    try (FakeLlmServer api = new FakeLlmServer()) {
      api.reply(200, FakeLlmServer.claude(FakeLlmServer.verdict("OK", "", "")))
          .reply(200, FakeLlmServer.claude(FakeLlmServer.verdict("SPIRALING", "First advice.", "loop 1")))
          .reply(401, FakeLlmServer.claudeError("authentication_error", "invalid x-api-key"))
          .reply(200, FakeLlmServer.claude(FakeLlmServer.verdict("OK", "", "")))
          .reply(200, FakeLlmServer.claude(FakeLlmServer.verdict("SPIRALING", "Advice again.", "loop 2")))
          .reply(200, FakeLlmServer.claude(FakeLlmServer.verdict("SPIRALING", "Still looping.", "loop 3")))
          .reply(200, FakeLlmServer.claude(FakeLlmServer.verdict("SPIRALING", "No change.", "the same make test 18 times")));
      Files.writeString(dir.resolve("colony.yaml"), "name: e2e\ndefaults:\n  poll_interval: 1h\n");
      Files.createDirectories(dir.resolve("ants"));
      // Seven rounds of three turns, one evaluation each (the fake model's seven answers): after
      // each round the agent waits until the model has answered it (a latch, not a sleep; bounded
      // at 30 s). A whisper reaches the agent's file with its next turn line: after the seventh
      // round it takes turns until the escalation is there (bounded too).
      // What the agent and the test share: a directory its sandbox grants (sandbox.write), since
      // the colony's own directory is out of its sight.
      Path shared = Files.createDirectories(dir.resolve("shared"));
      api.countAnswersIn(shared.resolve("answered"));
      Files.writeString(dir.resolve("agent.sh"), """
          #!/bin/sh
          answered() { cat "%1$s/answered" 2>/dev/null || echo 0; }
          turn() { echo 'COLONY_TURN {"tool":"Bash","input":"make test","result":"FAILED","error":true}'; }
          for round in 1 2 3 4 5 6 7; do
            turn; turn; turn
            i=0
            while [ "$(answered)" -lt "$round" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
          done
          i=0
          until grep -q ESCALATION "$COLONY_WHISPER_FILE" || [ $i -ge 600 ]; do turn; sleep 0.05; i=$((i+1)); done
          cp "$COLONY_WHISPER_FILE" "%1$s/received.txt"
          echo "done looping"
          """.formatted(shared));
      dir.resolve("agent.sh").toFile().setExecutable(true);
      Files.writeString(dir.resolve("ants/looper.yaml"), """
          name: looper
          description: loops
          instructions: make the tests pass
          engine: command
          command:
            argv: ["%s"]
          supervisor:
            thinking: off
            window_size: 6
            eval_interval: 3
            escalation_threshold: 3
          sandbox:
            write: ["%s"]
          """.formatted(dir.resolve("agent.sh"), shared));
      Files.writeString(dir.resolve(".env"), "ANTHROPIC_API_KEY=sk-ant-e2e-0123456789abcdef\nANTHROPIC_BASE_URL="
          + api.baseUrl() + "\n");
      var spec = ColonyLoader.load(dir).ant("looper").orElseThrow();

      env = TestWorkflowEnvironment.newInstance();
      dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
      Worker worker = env.newWorker("q");
      worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class);
      worker.registerActivitiesImplementations(
          SessionActivitiesImpl.withDefaultEngines((ChatPost p) -> posts.add(p.text()),
              new PrintStream(PrintStream.nullOutputStream())),
          new WorkspaceActivitiesImpl(), new ChatActivitiesImpl((ChatPost p) -> posts.add(p.text())),
          new OverseerActivitiesImpl(new Secrets()));
      env.start();
      AntWorkflow ant = env.getWorkflowClient().newWorkflowStub(AntWorkflow.class,
          WorkflowOptions.newBuilder().setWorkflowId(spec.workflowId()).setTaskQueue("q").build());
      WorkflowClient.start(ant::run, new AntRun(spec, null));

      eventually(Duration.ofSeconds(60), () -> ant.status().state() == Lifecycle.PAUSED,
          () -> "escalated and paused; posts: " + posts + "\nwhispers: " + read(dir.resolve("shared/received.txt"))
              + "\nmodel calls: " + api.requests.size());
      AntStatus s = ant.status();
      assertEquals(Lifecycle.PAUSED, s.state(), () -> s.overseer() + "\n" + read(dir.resolve("shared/received.txt"))
          + "\n" + api.requests.size());
      assertEquals("escalation", s.pauseReason());
      assertEquals(List.of(
              "[CORRECTION] First advice.",
              "[CORRECTION] Advice again.",
              "[CORRECTION] Notice 2 of 2: you are still retrying the same approach without progress. Still looping."
                  + " Change your approach now; if you cannot make progress, stop and say what blocks you.",
              "[ESCALATION] Still retrying the same approach without progress after 2 notices. Humans have been"
                  + " alerted and this ant will pause after this session. Finish the step you are on, write down where"
                  + " you are and what blocks you, and stop."),
          Files.readAllLines(dir.resolve("shared/received.txt")));
      // Six answered calls at the fake's usage (321 tokens in, 45 out) and Sonnet's list price; the 401 cost nothing.
      assertTrue(s.overseer().startsWith("claude-sonnet-4-6: 6 evaluations (last SPIRALING), $0.0098 spent, 1 skipped "
          + "(Anthropic API answered 401"), s.overseer());
      assertEquals(6 * (321 * 3.0 + 45 * 15.0) / 1e6, ant.stats().costUsd(), 1e-9, "counted in the ant's spend");
      assertTrue(s.overseer().endsWith("3 whispers, 1 escalation; escalated (SPIRALING), awaiting a human"),
          s.overseer());
      assertEquals(7, api.requests.size(), "no evaluation after the escalation, no retry of a refused key");
      assertTrue(posts.stream().anyMatch(p -> p.startsWith("🚨 [ESCALATION] **looper** appears stuck (SPIRALING): "
          + "the same make test 18 times")), posts.toString());
      assertTrue(posts.stream().noneMatch(p -> p.contains("First advice")), "whispers stay private");
      assertTrue(ant.stats().turns() >= 21, "COLONY_TURN lines count as the session's turns");
      String history = env.getWorkflowClient().fetchHistory(spec.workflowId()).toJson(false);
      assertFalse(history.contains("sk-ant-e2e"), "the key never enters the history");
    }
  }
}
