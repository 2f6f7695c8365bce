package dev.colony.ant;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.colony.spec.AntSpec;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Cron ants on virtual time from a fixed start: exact ticks across a DST change, missed ticks run once. */
@Timeout(180)
class ScheduleTest {
  private static final String QUEUE = "schedule";
  private TestWorkflowEnvironment env;
  private Fakes.ScriptedSessions sessions;

  @AfterEach
  void tearDown() {
    env.close();
  }

  private AntWorkflow start(Instant at, String cron, String zone) {
    env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder().setInitialTime(at).build());
    dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class);
    sessions = new Fakes.ScriptedSessions();
    sessions.clock = env::currentTimeMillis;
    worker.registerActivitiesImplementations(sessions, new Fakes.RecordingChat(), new Fakes.FixedWorkspace());
    env.start();
    AntSpec base = Fakes.withSchedule(Fakes.spec("cron"), cron, List.of());
    AntSpec spec = base.toBuilder().cron(cron).timezone(zone).build();
    AntWorkflow ant = env.getWorkflowClient().newWorkflowStub(AntWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(spec.workflowId()).setTaskQueue(QUEUE).build());
    WorkflowClient.start(ant::run, new AntRun(spec, null));
    return ant;
  }

  private List<Instant> starts() {
    List<Instant> out = new ArrayList<>();
    // to the second: the activity starts a few milliseconds after its timer fires
    sessions.startedAt.forEach(ms -> out.add(Instant.ofEpochMilli(ms / 1000 * 1000)));
    return out;
  }

  @Test
  void weekdayMorningsInNewYorkOverTwoWeeksAcrossTheStartOfDaylightSavingTime() {
    // Monday 2 March 2026, midnight UTC; New York moves to EDT on Sunday 8 March.
    start(Instant.parse("2026-03-02T00:00:00Z"), "0 9 * * 1-5", "America/New_York");
    env.sleep(Duration.ofDays(14));
    List<Instant> expected = new ArrayList<>();
    for (String day : List.of("02", "03", "04", "05", "06")) {
      expected.add(Instant.parse("2026-03-" + day + "T14:00:00Z")); // 09:00 EST
    }
    for (String day : List.of("09", "10", "11", "12", "13")) {
      expected.add(Instant.parse("2026-03-" + day + "T13:00:00Z")); // 09:00 EDT
    }
    assertEquals(expected, starts());
  }

  @Test
  void ticksMissedWhilePausedRunOnceOnResumeNotOncePerTick() {
    AntWorkflow ant = start(Instant.parse("2026-06-01T00:30:00Z"), "0 * * * *", "UTC");
    env.sleep(Duration.ofMinutes(40)); // the 01:00 tick
    assertEquals(1, sessions.requests.size());
    ant.pause();
    env.sleep(Duration.ofHours(5)); // 02:00 … 06:00 pass while paused
    assertEquals(1, sessions.requests.size());
    ant.resume();
    env.sleep(Duration.ofMinutes(20)); // resumed at ~06:10: one catch-up run, not five
    assertEquals(2, sessions.requests.size(), starts().toString());
    env.sleep(Duration.ofMinutes(45)); // then the normal 07:00 tick
    assertEquals(3, sessions.requests.size(), starts().toString());
    assertEquals(Instant.parse("2026-06-01T07:00:00Z"), starts().get(2));
  }
}
