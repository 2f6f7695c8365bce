package dev.colony.bench;

import dev.colony.ant.AntMemory;
import dev.colony.ant.AntRun;
import dev.colony.ant.AntWorkflow;
import dev.colony.ant.AntWorkflowImpl;
import dev.colony.chat.ChatActivities;
import dev.colony.chat.ChatPost;
import dev.colony.errorpolicy.Outcome;
import dev.colony.session.SessionActivities;
import dev.colony.session.SessionRequest;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.spec.Autonomy;
import dev.colony.spec.ClaudeSpec;
import dev.colony.spec.ConfirmationSpec;
import dev.colony.spec.EngineKind;
import dev.colony.spec.GeminiSpec;
import dev.colony.spec.LmOutput;
import dev.colony.spec.RecoveryPolicy;
import dev.colony.spec.ToolCallLogging;
import dev.colony.spec.WorkspaceSpec;
import dev.colony.visibility.AntSearchAttributes;
import dev.colony.workspace.WorkspaceActivities;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Benchmark 4: replay cost over a long life. An ant runs 5-minute sessions (a sleep of 300 s
 * between instant sessions) on the time-skipping server; it continues as new every
 * {@code AntSpec.DEFAULT_CONTINUE_AS_NEW_EVERY} sessions, so its latest run holds at most that many
 * sessions whatever its age. Its age shows only in what it carries over: the memory of a
 * year-old ant (about 100,000 sessions, 5,000 handled issues, the bounded message-id memory)
 * is given to the run measured as "a year old".
 */
final class ReplayBench {
  private ReplayBench() {}

  /**
   * @param replayMedianMs one {@code WorkflowReplayer.replayWorkflowExecution} call (it builds a
   *     replay worker each time)
   * @param replayInWorkerMs one history among {@code replays} replayed by one replay worker: what
   *     a running worker pays to rebuild an ant it had evicted
   */
  record Result(String label, int sessionsInRun, int events, double eventsPerSession, double replayMedianMs,
      double replayP99Ms, double replayInWorkerMs) {}

  static final class InstantSessions implements SessionActivities {
    @Override
    public SessionResult runSession(SessionRequest request) {
      return SessionResult.of(Outcome.SUCCESS, "done " + request.session());
    }
  }

  static final class NoChat implements ChatActivities {
    @Override
    public void post(ChatPost post) {}
  }

  static AntSpec spec(String name) {
    return AntSpec.builder().colony("bench").name(name).description("a long-lived ant").instructions("keep going")
        .engine(EngineKind.COMMAND).claude(ClaudeSpec.DEFAULTS).gemini(GeminiSpec.DEFAULTS).discordChannel(name)
        .autonomy(Autonomy.HUMAN).confirmation(ConfirmationSpec.NONE).toolCalls(ToolCallLogging.IMPACTFUL)
        .lmOutput(LmOutput.DISCORD).recovery(RecoveryPolicy.RESUME).pollIntervalSeconds(300)
        .confirmationTimeoutSeconds(1800).sessionTimeoutSeconds(3600).heartbeatTimeoutSeconds(30)
        .continueAsNewEvery(AntSpec.DEFAULT_CONTINUE_AS_NEW_EVERY).workspace(new WorkspaceSpec("/tmp", null, null))
        .colonyDir("/tmp").sourceFile("ants/" + name + ".yaml").build();
  }

  /** What a year of 5-minute sessions leaves in an ant's memory (every bounded list full). */
  static AntMemory yearOld() {
    int sessions = 105_000 - 105_000 % AntSpec.DEFAULT_CONTINUE_AS_NEW_EVERY;
    List<String> handled = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      handled.add("acme/app#" + (100_000 + i));
    }
    List<String> mailIds = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      mailIds.add("discord:" + (900_000_000_000L + i));
    }
    Map<String, Integer> byOutcome = new HashMap<>(Map.of("success", sessions - 2_000, "transient", 1_500,
        "rate_limit", 500));
    // Built from its carried JSON: the memory is the sum of the ant's parts, named as on the wire.
    Map<String, Object> carried = new java.util.LinkedHashMap<>();
    carried.put("sessions", sessions);
    carried.put("postSequence", sessions * 2L);
    carried.put("announced", true);
    carried.put("lastOutcome", "success");
    carried.put("lastDetail", "done");
    carried.put("sessionsByOutcome", byOutcome);
    carried.put("turns", sessions * 40L);
    carried.put("costUsd", 3_150.75);
    carried.put("costReported", true);
    carried.put("inputTokens", sessions * 20_000L);
    carried.put("outputTokens", sessions * 4_000L);
    carried.put("handledIssues", handled);
    carried.put("totalErrors", 2_000);
    carried.put("mailIds", mailIds);
    carried.put("lastConversation", "conv-" + sessions);
    return new com.fasterxml.jackson.databind.ObjectMapper().convertValue(carried, AntMemory.class);
  }

  /** Runs one ant run to its continue-as-new (or {@code sessions} sessions) and measures its replay. */
  static Result measure(String label, AntMemory memory, int sessions, int replays) throws Exception {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
      var worker = env.newWorker("bench");
      worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class);
      worker.registerActivitiesImplementations(new InstantSessions(), new NoChat(),
          WorkspaceActivities.anywhere(s -> "/tmp/ws/" + s.name()));
      env.start();
      AntSpec spec = spec(label.replace(' ', '-'));
      AntWorkflow ant = env.getWorkflowClient().newWorkflowStub(AntWorkflow.class,
          WorkflowOptions.newBuilder().setWorkflowId(spec.workflowId()).setTaskQueue("bench").build());
      WorkflowExecution first = WorkflowClient.start(ant::run, new AntRun(spec, memory));
      // The run ends in continue-as-new after the default number of sessions; a shorter life is cut by the clock.
      env.sleep(Duration.ofSeconds(300L * sessions + 150));
      WorkflowExecutionHistory history = env.getWorkflowClient().fetchHistory(spec.workflowId(), first.getRunId());
      int events = history.getEvents().size();
      int ran = (int) history.getEvents().stream()
          .filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
              && e.getActivityTaskScheduledEventAttributes().getActivityType().getName().equals("RunSession"))
          .count();
      List<Double> times = new ArrayList<>();
      for (int i = 0; i < replays + 5; i++) {
        long t0 = System.nanoTime();
        WorkflowReplayer.replayWorkflowExecution(history, AntWorkflowImpl.class);
        if (i >= 5) { // the first few warm the JIT
          times.add((System.nanoTime() - t0) / 1e6);
        }
      }
      times.sort(null);
      List<WorkflowExecutionHistory> copies = java.util.Collections.nCopies(replays, history);
      WorkflowReplayer.replayWorkflowExecutions(copies, true, AntWorkflowImpl.class); // warm-up
      long w0 = System.nanoTime();
      var results = WorkflowReplayer.replayWorkflowExecutions(copies, true, AntWorkflowImpl.class);
      double inWorker = (System.nanoTime() - w0) / 1e6 / replays;
      if (results.hadAnyError()) {
        throw new IllegalStateException("replay failed: " + results.allErrors().size() + " histories");
      }
      return new Result(label, ran, events, ran == 0 ? 0 : (double) events / ran,
          times.get(times.size() / 2), times.get(Math.min(times.size() - 1, (int) Math.ceil(times.size() * 0.99) - 1)),
          inWorker);
    }
  }
}
