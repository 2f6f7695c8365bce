package dev.colony.ant;

import static dev.colony.testing.Eventually.eventually;
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
import dev.colony.spec.TriggerSpec;
import dev.colony.spec.WorkspaceSpec;
import dev.colony.workspace.WorkspaceActivities;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/** Scripted activities for workflow tests: each session takes the next scripted result. */
final class Fakes {
  private Fakes() {}

  /**
   * A time-skipping test environment whose one worker on {@code queue} runs the ant workflow with
   * the given activities; the ants' search attributes are registered.
   */
  static io.temporal.testing.TestWorkflowEnvironment environment(String queue, Object... activities) {
    var env = io.temporal.testing.TestWorkflowEnvironment.newInstance();
    dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
    var worker = env.newWorker(queue);
    worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class, dev.colony.supervision.ColonyWorkflowImpl.class);
    worker.registerActivitiesImplementations(activities);
    env.start();
    return env;
  }

  /** Waits (real time, at most 15 s) for workers and signals; virtual time does not move meanwhile. */
  /** Starts an ant on {@code queue} as {@code colony start} would, with no memory. */
  static AntWorkflow start(io.temporal.client.WorkflowClient client, String queue, AntSpec spec) {
    AntWorkflow ant = client.newWorkflowStub(AntWorkflow.class, io.temporal.client.WorkflowOptions.newBuilder()
        .setWorkflowId(spec.workflowId()).setTaskQueue(queue).build());
    io.temporal.client.WorkflowClient.start(ant::run, new AntRun(spec, null));
    return ant;
  }

  static AntSpec spec(String name) {
    return dev.colony.testing.Specs.ant(name).build();
  }

  static AntSpec withPoll(AntSpec s, long seconds) {
    return s.toBuilder().pollIntervalSeconds(seconds).build();
  }

  static AntSpec withErrorPolicy(AntSpec s, dev.colony.errorpolicy.ErrorPolicy sup) {
    return s.toBuilder().errorPolicy(sup).build();
  }

  static AntSpec withSchedule(AntSpec s, String cron, List<TriggerSpec> triggers) {
    return s.toBuilder().cron(cron).timezone("UTC").triggers(triggers).build();
  }

  /** A session activity that plays a script; once the script is exhausted it blocks on success. */
  static final class ScriptedSessions implements SessionActivities {
    final Deque<Supplier<SessionResult>> script = new ConcurrentLinkedDeque<>();
    final List<SessionRequest> requests = new CopyOnWriteArrayList<>();
    final List<Long> startedAt = new CopyOnWriteArrayList<>();
    volatile Supplier<SessionResult> fallback = () -> SessionResult.of(Outcome.SUCCESS, "done");
    volatile java.util.function.LongSupplier clock = System::currentTimeMillis;

    ScriptedSessions then(Outcome o, String detail) {
      script.add(() -> SessionResult.of(o, detail));
      return this;
    }

    ScriptedSessions then(Supplier<SessionResult> s) {
      script.add(s);
      return this;
    }

    /** A session that runs until {@code release} opens, then succeeds with {@code detail}. */
    ScriptedSessions thenBlockUntil(java.util.concurrent.CountDownLatch release, String detail) {
      return then(() -> {
        try {
          release.await(2, java.util.concurrent.TimeUnit.MINUTES); // bounded: never outlives the test
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return SessionResult.of(Outcome.SUCCESS, detail);
      });
    }

    @Override
    public SessionResult runSession(SessionRequest request) {
      // startedAt first: tests wait on requests.size() and then read startedAt
      startedAt.add(clock.getAsLong());
      requests.add(request);
      Supplier<SessionResult> next = script.poll();
      return (next == null ? fallback : next).get();
    }

    List<List<String>> deliveredMessages() {
      List<List<String>> out = new ArrayList<>();
      for (SessionRequest r : requests) {
        out.add(r.messages());
      }
      return out;
    }
  }

  static final class RecordingChat implements ChatActivities {
    final List<ChatPost> posts = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void post(ChatPost post) {
      posts.add(post);
    }

    List<String> texts() {
      synchronized (posts) {
        return posts.stream().map(ChatPost::text).toList();
      }
    }
  }

  static final class FixedWorkspace implements WorkspaceActivities {
    @Override
    public String prepareWorkspace(AntSpec spec) {
      return "/tmp/ws/" + spec.name();
    }

    @Override
    public String claimHost() {
      return ""; // no host queues: everything on the test's one queue
    }

    @Override
    public boolean hostPolling(String queue) {
      return false;
    }
  }
}
