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

  /**
   * The board as an ant sees it: {@code FindTasks} answers {@link #candidates}, a claim takes the
   * task (unless its id is in {@link #refuse}) and answers a brief; every call is recorded.
   * {@link #failClaims} claim attempts die first (a worker killed mid-claim), and are retried.
   */
  static final class FakeTasks implements dev.colony.task.TaskActivities {
    final List<dev.colony.task.TaskCandidate> candidates = new CopyOnWriteArrayList<>();
    final java.util.Set<String> refuse = java.util.concurrent.ConcurrentHashMap.newKeySet();
    final List<dev.colony.task.FindTasks> finds = new CopyOnWriteArrayList<>();
    /** "id token" per claim attempt. */
    final List<String> claims = new CopyOnWriteArrayList<>();
    final List<dev.colony.task.TaskReport> reports = new CopyOnWriteArrayList<>();
    final java.util.concurrent.atomic.AtomicInteger failClaims = new java.util.concurrent.atomic.AtomicInteger();
    /** Answers to the next reports (accepted, in the state the kind leads to, when empty). */
    final Deque<dev.colony.task.TaskReply> replies = new ConcurrentLinkedDeque<>();

    static dev.colony.task.TaskCandidate todo(String id, dev.colony.task.Priority p, long queuedAt) {
      return new dev.colony.task.TaskCandidate(id, p, queuedAt, false);
    }

    static dev.colony.task.TaskBrief brief(String id, String token) {
      return new dev.colony.task.TaskBrief("test", id, "Title of " + id, "Body of " + id,
          dev.colony.task.Priority.NORMAL, List.of("docs"),
          List.of(new dev.colony.task.TaskComment("@alice", "try the short way", 1_000)), null, token, null, 0);
    }

    @Override
    public List<dev.colony.task.TaskCandidate> find(dev.colony.task.FindTasks find) {
      finds.add(find);
      return List.copyOf(candidates);
    }

    /** Find, then claim best first (by TaskOrder, on the real clock: the fake's candidates are minutes apart). */
    @Override
    public dev.colony.task.ClaimResult take(dev.colony.task.FindTasks find, dev.colony.task.Claim claim) {
      takes.add(claim.token());
      for (var c : dev.colony.task.TaskOrder.sort(find(find), System.currentTimeMillis(), find.agingSeconds())) {
        var r = claim(find.colony(), c.id(), claim);
        if (r.taken()) {
          return r;
        }
      }
      return dev.colony.task.ClaimResult.refused("no task to take");
    }

    /** The token of each TakeTask call (one per look). */
    final List<String> takes = new CopyOnWriteArrayList<>();

    @Override
    public dev.colony.task.ClaimResult claim(String colony, String taskId, dev.colony.task.Claim claim) {
      claims.add(taskId + " " + claim.token());
      if (failClaims.getAndDecrement() > 0) {
        throw new IllegalStateException("worker died mid-claim");
      }
      if (refuse.contains(taskId)) {
        return dev.colony.task.ClaimResult.refused("another ant took it");
      }
      candidates.removeIf(c -> c.id().equals(taskId));
      return dev.colony.task.ClaimResult.took(brief(taskId, claim.token()));
    }

    @Override
    public dev.colony.task.TaskReply report(String colony, String taskId, dev.colony.task.TaskReport report) {
      reports.add(report);
      dev.colony.task.TaskReply next = replies.poll();
      if (next != null) {
        return next;
      }
      return new dev.colony.task.TaskReply(true, switch (report.kind()) {
        case SUBMITTED -> report.done() ? dev.colony.task.TaskState.DONE : dev.colony.task.TaskState.IN_REVIEW;
        case FAILED -> dev.colony.task.TaskState.IN_PROGRESS;
        case BLOCKED -> dev.colony.task.TaskState.BLOCKED;
        case RELEASED -> dev.colony.task.TaskState.TODO;
      }, null);
    }

    List<dev.colony.task.TaskReport.Kind> kinds() {
      return reports.stream().map(dev.colony.task.TaskReport::kind).toList();
    }

    @Override
    public int announce(String colony, List<String> takeTags) {
      return 0;
    }

    @Override
    public boolean antRunning(String colony, String ant) {
      return true;
    }

    @Override
    public String antHolds(String colony, String ant, String taskId) {
      return "holds";
    }

    @Override
    public void withdraw(String colony, String ant, String taskId) {}
  }
}
