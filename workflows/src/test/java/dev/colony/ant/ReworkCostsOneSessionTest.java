package dev.colony.ant;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.merge.BranchHead;
import dev.colony.merge.LandMode;
import dev.colony.merge.MergeActivities;
import dev.colony.merge.MergeDeskActivities;
import dev.colony.merge.MergeQueueState;
import dev.colony.merge.MergeQueueWorkflow;
import dev.colony.merge.MergeQueueWorkflowImpl;
import dev.colony.merge.MergeRepo;
import dev.colony.merge.PathClaim;
import dev.colony.merge.PathReply;
import dev.colony.merge.RebaseResult;
import dev.colony.merge.Submission;
import dev.colony.merge.SubmitReply;
import dev.colony.merge.TargetUpdate;
import dev.colony.merge.TestRun;
import dev.colony.spec.AntSpec;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An ant, its repository's merge queue and a task board, together: the ant's work for a task
 * conflicts once in the queue. The rework is the ant's one extra session (its own); the task never
 * goes back to To Do (no second session for it) and is Done when the fix lands.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ReworkCostsOneSessionTest {
  private static final String QUEUE = "rework-one";
  private TestWorkflowEnvironment env;

  @AfterEach
  void close() {
    if (env != null) {
      env.close();
    }
  }

  /**
   * The task board in one place: the ant's side ({@link Fakes.FakeTasks}: its To Do candidates,
   * claims and reports) and the queue's side (this desk), which moves the same tasks.
   */
  static final class Desk implements MergeDeskActivities {
    final Fakes.FakeTasks board;
    volatile WorkflowClient client;
    final Map<String, dev.colony.task.TaskState> states = new ConcurrentHashMap<>();
    /** Every change of a task's state by the queue, in order: "t1 TODO". */
    final List<String> moves = new CopyOnWriteArrayList<>();
    final List<Submission> submissions = new CopyOnWriteArrayList<>();

    Desk(Fakes.FakeTasks board) {
      this.board = board;
    }

    @Override
    public SubmitReply submit(MergeRepo repo, Submission s) {
      submissions.add(s);
      return client.newWorkflowStub(MergeQueueWorkflow.class, repo.workflowId()).submit(s);
    }

    @Override
    public PathReply claimPaths(MergeRepo repo, PathClaim claim) {
      return PathReply.grant();
    }

    @Override
    public void releasePaths(MergeRepo repo, String ant) {}

    @Override
    public void finishTask(String colony, String taskId, String comment) {
      states.put(taskId, dev.colony.task.TaskState.DONE);
      moves.add(taskId + " DONE");
    }

    @Override
    public void reworkTask(String colony, String taskId, String ant, String comment) {
      // requeued to To Do, assigned to the ant: the ant finds it again
      states.put(taskId, dev.colony.task.TaskState.TODO);
      moves.add(taskId + " TODO");
      board.candidates.add(Fakes.FakeTasks.todo(taskId, dev.colony.task.Priority.NORMAL, System.currentTimeMillis()));
    }

    @Override
    public void taskInRework(String colony, String taskId, String comment, boolean review) {
      moves.add(taskId + " in rework, left where it is");
    }

    @Override
    public Map<String, dev.colony.task.TaskState> taskStates(String colony, List<String> taskIds) {
      Map<String, dev.colony.task.TaskState> out = new TreeMap<>();
      taskIds.forEach(id -> out.put(id, states.getOrDefault(id, dev.colony.task.TaskState.IN_REVIEW)));
      return out;
    }
  }

  /** The repository: the ant's first try conflicts with the target, the fix rebases cleanly. */
  static final class Git implements MergeActivities {
    final AtomicInteger rebases = new AtomicInteger();
    final List<String> landed = new CopyOnWriteArrayList<>();
    volatile String target = "m0";

    @Override
    public BranchHead publishBranch(MergeRepo repo, String ant, String branch, String since, String approved) {
      return new BranchHead("h" + rebases.get(), "m0", 1, List.of("src/a.txt"), branch);
    }

    @Override
    public String prepareScratch(MergeRepo repo) {
      return "/tmp/scratch";
    }

    @Override
    public RebaseResult rebase(MergeRepo repo, BranchHead branch, String onto, String message) {
      if (rebases.getAndIncrement() == 0) {
        return new RebaseResult(null, 0, List.of("src/a.txt"), "CONFLICT (content): Merge conflict in src/a.txt",
            List.of());
      }
      return new RebaseResult("r" + branch.head(), 1, List.of(), "rebased", List.of("the fix"));
    }

    @Override
    public TestRun runTests(MergeRepo repo, String head) {
      return new TestRun(true, 0, false, 1_000, "ok");
    }

    @Override
    public synchronized TargetUpdate updateTarget(MergeRepo repo, String expected, String head) {
      landed.add(head);
      target = head;
      return new TargetUpdate(TargetUpdate.Outcome.UPDATED, head);
    }

    @Override
    public String openPullRequest(MergeRepo repo, String ant, String branch, String head, String title, String body) {
      throw new UnsupportedOperationException();
    }

    @Override
    public String syncBranch(AntSpec spec, String landedFrom, String landedTo) {
      return "moved onto " + landedTo;
    }
  }

  @Test
  void oneReworkIsOneExtraSessionAndTheTaskNeverGoesBackToToDo() {
    env = TestWorkflowEnvironment.newInstance();
    dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class, MergeQueueWorkflowImpl.class);
    Fakes.ScriptedSessions sessions = new Fakes.ScriptedSessions();
    Fakes.FakeTasks board = new Fakes.FakeTasks();
    Desk desk = new Desk(board);
    Git git = new Git();
    worker.registerActivitiesImplementations(sessions, new Fakes.RecordingChat(), new Fakes.FixedWorkspace(), desk,
        git, board);
    env.start();
    desk.client = env.getWorkflowClient();

    MergeRepo repo = new MergeRepo("test", "app", "/tmp/repo", "main", LandMode.REBASE, List.of("./test.sh"), 60,
        false, false, 3, 3600, "/tmp", "/tmp/scratch", null, null);
    MergeQueueWorkflow queue = env.getWorkflowClient().newWorkflowStub(MergeQueueWorkflow.class,
        WorkflowOptions.newBuilder().setWorkflowId(repo.workflowId()).setTaskQueue(QUEUE).build());
    WorkflowClient.start(queue::run, MergeQueueState.start(repo));

    board.candidates.add(Fakes.FakeTasks.todo("t1", dev.colony.task.Priority.NORMAL, env.currentTimeMillis()));
    AntSpec spec = Fakes.withPoll(Fakes.spec("worker"), 60).toBuilder()
        .workspace(new dev.colony.spec.WorkspaceSpec("/tmp/ws", "/tmp/repo", null, null, List.of()))
        .merge(repo)
        .tasks(new dev.colony.spec.TaskPolicy(List.of("docs"), true, 3, false, 0)) // with no task it waits for one
        .build();
    AntWorkflow ant = Fakes.start(env.getWorkflowClient(), QUEUE, spec);

    // t1's session, its report (In Review), its submission; the queue sends it back; the rework's
    // session resubmits; the fix lands and t1 is Done.
    eventually(() -> desk.moves.contains("t1 DONE"), "t1 is Done after the fix landed: " + desk.moves);
    eventually(() -> git.landed.size() == 1, "the fix landed once");
    // An hour on: the ant polls for work a few times and finds nothing more to do for t1.
    env.sleep(Duration.ofHours(1));
    assertEquals(2, sessions.requests.size(),
        "t1's session and the rework's session, nothing more; the queue's moves: " + desk.moves);
    assertTrue(desk.moves.stream().noneMatch(m -> m.endsWith("TODO")), "t1 never went back to To Do: " + desk.moves);
    assertEquals(1, board.claims.stream().filter(c -> c.startsWith("t1 ")).count(), "t1 was taken once: " + board.claims);
    assertEquals(1, board.reports.size(), "t1 was reported once (the rework's session reports nothing): " + board.reports);
    assertEquals(2, desk.submissions.size(), "t1's work, then the fix: " + desk.submissions);
    assertEquals(Boolean.TRUE, desk.submissions.get(1).fix(), "the second submission is the rework's fix");
    assertEquals(List.of("t1 in rework, left where it is", "t1 DONE"), desk.moves);
    ant.stop();
    WorkflowStub.fromTyped(ant).getResult(Void.class);
    if (Boolean.getBoolean("colony.recordHistories")) {
      // The ant's and its queue's histories of the rework that leaves its task where it is
      // (the "merge-rework-in-place" marker): replayed by HistoryReplayTest from then on.
      try {
        java.nio.file.Path dir = HistoryReplayTest.HISTORIES.resolve(RECORDING);
        java.nio.file.Files.createDirectories(dir);
        java.nio.file.Files.writeString(dir.resolve("ant-rework-in-place.json"),
            env.getWorkflowClient().fetchHistory(spec.workflowId()).toJson(true));
        java.nio.file.Files.writeString(dir.resolve("queue-rework-in-place.json"),
            env.getWorkflowClient().fetchHistory(repo.workflowId()).toJson(true));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }

  /** Where this scenario's histories are recorded. */
  static final String RECORDING = "1.5-rework2";
}
