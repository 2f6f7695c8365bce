package dev.colony.task;

import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/** A time-skipping environment running TaskWorkflowImpl with recording task activities (also for the replay recorder). */
public final class TaskFakes {
  public static final String QUEUE = "colony-test";
  public static final String COLONY = "test";

  private TaskFakes() {}

  /** The task's activities, recorded; whether ants run is a switch. */
  public static final class RecordingTasks implements TaskActivities {
    public final List<List<String>> announced = new CopyOnWriteArrayList<>();
    public final List<String> withdrawn = new CopyOnWriteArrayList<>();
    public final List<String> askedRunning = new CopyOnWriteArrayList<>();
    public final AtomicBoolean antsRun = new AtomicBoolean(true);
    /** Whether a running ant still holds its task (its TaskSlot names it). */
    public final AtomicBoolean antsHold = new AtomicBoolean(true);

    @Override
    public List<TaskCandidate> find(FindTasks find) {
      return List.of();
    }

    @Override
    public ClaimResult claim(String colony, String taskId, Claim claim) {
      throw new UnsupportedOperationException();
    }

    @Override
    public ClaimResult take(FindTasks find, Claim claim) {
      throw new UnsupportedOperationException();
    }

    @Override
    public TaskReply report(String colony, String taskId, TaskReport report) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int announce(String colony, List<String> takeTags) {
      announced.add(takeTags);
      return 1;
    }

    @Override
    public boolean antRunning(String colony, String ant) {
      askedRunning.add(ant);
      return antsRun.get();
    }

    @Override
    public String antHolds(String colony, String ant, String taskId) {
      askedRunning.add(ant);
      return !antsRun.get() ? "gone" : antsHold.get() ? "holds" : "free";
    }

    @Override
    public void withdraw(String colony, String ant, String taskId) {
      withdrawn.add(ant + " " + taskId);
    }
  }

  public static TestWorkflowEnvironment environment(RecordingTasks tasks) {
    TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();
    dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
    TaskSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
    var worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(TaskWorkflowImpl.class);
    worker.registerActivitiesImplementations(tasks);
    env.start();
    return env;
  }

  public static NewTask task(String id, String title, List<String> labels, Assignee assignee) {
    return new NewTask(id, title, "the body of " + title, Priority.NORMAL, labels, assignee, TaskState.TODO, null, "cli");
  }

  public static TaskWorkflow start(WorkflowClient client, NewTask task, TaskSettings settings) {
    TaskWorkflow w = client.newWorkflowStub(TaskWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(TaskIds.workflowId(COLONY, task.id())).setTaskQueue(QUEUE).build());
    WorkflowClient.start(w::run, new TaskRun(COLONY, task, null, settings));
    return w;
  }

  public static Claim claim(String ant, String token, List<String> takes) {
    return new Claim(ant, token, Assignee.takerTags(ant, takes));
  }
}
