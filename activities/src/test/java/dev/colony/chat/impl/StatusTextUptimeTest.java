package dev.colony.chat.impl;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.ant.AntRun;
import dev.colony.ant.AntWorkflow;
import dev.colony.ant.AntWorkflowImpl;
import dev.colony.ant.Lifecycle;
import dev.colony.config.ColonyLoader;
import dev.colony.session.impl.SessionActivitiesImpl;
import dev.colony.workspace.impl.WorkspaceActivitiesImpl;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code uptime} in an ant's status: an ant started minutes ago that has not had a session yet
 * showed {@code uptime: 0s}, because a query's workflow clock stands still at the last workflow
 * task. The text is built by the caller, from the caller's clock.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StatusTextUptimeTest {
  @TempDir
  Path dir;

  private TestWorkflowEnvironment env;

  @AfterEach
  void close() {
    if (env != null) {
      env.close();
    }
  }

  @Test
  void anAntWaitingWithNoSessionShowsTheTimeSinceItStarted() throws Exception {
    Files.writeString(dir.resolve("colony.yaml"), "name: up\n");
    Files.createDirectories(dir.resolve("ants"));
    // Runs only when a human writes: it waits from its start, with no session and no timer.
    Files.writeString(dir.resolve("ants/idle.yaml"), """
        name: idle
        description: waits for a human
        instructions: answer
        engine: claude
        triggers:
          - type: discord_command
        """);
    Files.writeString(dir.resolve(".env"), "ANTHROPIC_API_KEY=sk-test\n");
    var spec = ColonyLoader.load(dir).ant("idle").orElseThrow();
    env = TestWorkflowEnvironment.newInstance();
    dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
    var worker = env.newWorker("q");
    worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class);
    worker.registerActivitiesImplementations(
        SessionActivitiesImpl.withDefaultEngines(p -> {}, new PrintStream(PrintStream.nullOutputStream())),
        new WorkspaceActivitiesImpl(), new ChatActivitiesImpl(p -> {}));
    env.start();
    AntWorkflow ant = env.getWorkflowClient().newWorkflowStub(AntWorkflow.class,
        WorkflowOptions.newBuilder().setWorkflowId(spec.workflowId()).setTaskQueue("q").build());
    WorkflowClient.start(ant::run, new AntRun(spec, null));
    eventually(() -> ant.status().state() == Lifecycle.WAITING, "the ant waits");

    env.sleep(Duration.ofMinutes(7));

    String text = StatusText.detail(ant.status(), ant.stats(), Instant.ofEpochMilli(env.currentTimeMillis()));
    assertTrue(text.contains("  uptime:             7m"), text);
  }
}
