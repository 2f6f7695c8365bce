package dev.colony.session.impl;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.colony.ant.AntRun;
import dev.colony.ant.AntWorkflow;
import dev.colony.ant.AntWorkflowImpl;
import dev.colony.chat.ChatPost;
import dev.colony.chat.impl.ChatActivitiesImpl;
import dev.colony.config.ColonyLoader;
import dev.colony.engine.Engine;
import dev.colony.engine.command.CommandEngine;
import dev.colony.spec.AntSpec;
import dev.colony.spec.EngineKind;
import dev.colony.task.Claim;
import dev.colony.task.ClaimResult;
import dev.colony.task.FindTasks;
import dev.colony.task.Priority;
import dev.colony.task.TaskActivities;
import dev.colony.task.TaskBrief;
import dev.colony.task.TaskCandidate;
import dev.colony.task.TaskReply;
import dev.colony.task.TaskReport;
import dev.colony.task.TaskState;
import dev.colony.task.TaskWork;
import dev.colony.workspace.impl.WorkspaceActivitiesImpl;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real session activity on a task: the command agent sees the task in its environment, commits in
 * the git workspace, and the ant's report carries the commit and diff stat since the task began.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class TaskSessionEndToEndTest {
  @TempDir
  Path dir;

  private TestWorkflowEnvironment env;
  private final List<TaskReport> reports = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    if (env != null) {
      env.close();
    }
  }

  /** One To Do task, taken by the first claim; reports are kept. */
  private final class OneTask implements TaskActivities {
    private volatile boolean taken;

    @Override
    public List<TaskCandidate> find(FindTasks find) {
      return taken ? List.of() : List.of(new TaskCandidate("k7m2qx", Priority.NORMAL, 0, false));
    }

    @Override
    public ClaimResult take(FindTasks find, Claim claim) {
      List<TaskCandidate> found = find(find);
      return found.isEmpty() ? ClaimResult.refused("no task to take") : claim(find.colony(), found.get(0).id(), claim);
    }

    @Override
    public ClaimResult claim(String colony, String taskId, Claim claim) {
      taken = true;
      return ClaimResult.took(new TaskBrief(colony, taskId, "Add f", "Add the file f.", Priority.NORMAL, List.of(),
          List.of(), null, claim.token(), null, 0));
    }

    @Override
    public TaskReply report(String colony, String taskId, TaskReport report) {
      reports.add(report);
      return new TaskReply(true, TaskState.IN_REVIEW, null);
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

  private static void git(Path repo, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("git", "-C", repo.toString(), "-c", "user.name=t", "-c",
        "user.email=t@example.com", "-c", "commit.gpgsign=false"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    assertEquals(0, p.waitFor(), String.join(" ", cmd));
  }

  @Test
  void theReportCarriesTheCommitsTheSessionMadeOnTheTask() throws Exception {
    Path ws = Files.createDirectories(dir.resolve("ws/worker"));
    git(ws, "init", "-q", "-b", "colony/worker");
    Files.writeString(ws.resolve("README.md"), "hello\n");
    git(ws, "add", ".");
    git(ws, "commit", "-q", "-m", "base");
    Files.writeString(dir.resolve("colony.yaml"), "name: lean\ndefaults:\n  poll_interval: 1h\n");
    Files.createDirectories(dir.resolve("ants"));
    String agent = "printf 'one\\ntwo\\n' > f.txt && echo \\\"$COLONY_TASK_ID\\\" > id.txt && git add f.txt"
        + " && git -c user.name=t -c user.email=t@example.com -c commit.gpgsign=false commit -qm 'Add f'";
    Files.writeString(dir.resolve("ants/worker.yaml"), "name: worker\ndescription: works\ninstructions: work\n"
        + "engine: command\ncommand:\n  argv: [\"sh\", \"-c\", \"" + agent + "\"]\ntasks:\n  takes: [docs]\n");
    AntSpec spec = ColonyLoader.load(dir).ant("worker").orElseThrow();
    env = TestWorkflowEnvironment.newInstance();
    dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
    Worker worker = env.newWorker("q");
    worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class);
    List<String> posts = new CopyOnWriteArrayList<>();
    SessionActivitiesImpl sessions = new SessionActivitiesImpl(Map.<EngineKind, Engine>of(EngineKind.COMMAND,
        new CommandEngine()), (ChatPost p) -> posts.add(p.text()), new PrintStream(PrintStream.nullOutputStream()))
        .withWorkspaces(s -> ws);
    worker.registerActivitiesImplementations(sessions, new WorkspaceActivitiesImpl(),
        new ChatActivitiesImpl((ChatPost p) -> posts.add(p.text())), new OneTask());
    env.start();
    AntWorkflow ant = env.getWorkflowClient().newWorkflowStub(AntWorkflow.class,
        WorkflowOptions.newBuilder().setWorkflowId(spec.workflowId()).setTaskQueue("q").build());
    WorkflowClient.start(ant::run, new AntRun(spec, null));

    eventually(dev.colony.testing.Eventually.DEFAULT, () -> reports.size() == 1, () -> "the report; posts: " + posts);
    TaskReport r = reports.get(0);
    assertEquals(TaskReport.Kind.SUBMITTED, r.kind(), r.text());
    TaskWork w = r.work();
    assertNotNull(w, "work from git");
    assertEquals("colony/worker", w.branch());
    assertEquals(List.of("Add f"), w.commits().stream().map(TaskWork.Commit::subject).toList());
    assertEquals(List.of("f.txt"), w.files());
    assertEquals(2, w.linesAdded());
    assertEquals("k7m2qx", Files.readString(ws.resolve("id.txt")).strip().replace("\"", ""));
  }
}
