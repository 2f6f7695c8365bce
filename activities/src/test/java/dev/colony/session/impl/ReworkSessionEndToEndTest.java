package dev.colony.session.impl;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.colony.ant.AntRun;
import dev.colony.ant.AntWorkflow;
import dev.colony.ant.AntWorkflowImpl;
import dev.colony.chat.ChatPost;
import dev.colony.chat.impl.ChatActivitiesImpl;
import dev.colony.config.ColonyLoader;
import dev.colony.engine.Engine;
import dev.colony.engine.command.CommandEngine;
import dev.colony.merge.ItemState;
import dev.colony.merge.LandMode;
import dev.colony.merge.MergeDeskActivities;
import dev.colony.merge.MergeNews;
import dev.colony.merge.MergeRepo;
import dev.colony.merge.PathClaim;
import dev.colony.merge.PathReply;
import dev.colony.merge.Submission;
import dev.colony.merge.SubmitReply;
import dev.colony.spec.AntSpec;
import dev.colony.spec.EngineKind;
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
 * A real session activity doing a rework: the merge queue sent the ant's item back, the rework runs
 * as a session of its own (no task), and the ant resubmits at the head that session ended at, which
 * is what a review approves.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ReworkSessionEndToEndTest {
  @TempDir
  Path dir;

  private TestWorkflowEnvironment env;
  private final List<Submission> submissions = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    if (env != null) {
      env.close();
    }
  }

  /** The queue as the ant calls it: submissions recorded, claims granted. */
  private final class Queue implements MergeDeskActivities {
    @Override
    public SubmitReply submit(MergeRepo repo, Submission s) {
      submissions.add(s);
      return new SubmitReply("worker-1", ItemState.AWAITING_REVIEW, 0, "joined worker-1");
    }

    @Override
    public PathReply claimPaths(MergeRepo repo, PathClaim claim) {
      return PathReply.grant();
    }

    @Override
    public void releasePaths(MergeRepo repo, String ant) {}

    @Override
    public void finishTask(String colony, String taskId, String comment) {}

    @Override
    public void reworkTask(String colony, String taskId, String ant, String comment) {}

    @Override
    public void taskInRework(String colony, String taskId, String comment, boolean review) {}

    @Override
    public Map<String, dev.colony.task.TaskState> taskStates(String colony, List<String> taskIds) {
      return Map.of();
    }
  }

  private static String git(Path repo, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("git", "-C", repo.toString(), "-c", "user.name=t", "-c",
        "user.email=t@example.com", "-c", "commit.gpgsign=false"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertEquals(0, p.waitFor(), String.join(" ", cmd));
    return out.strip();
  }

  @Test
  void theReworksSessionResubmitsAtTheHeadItEndedAt() throws Exception {
    Path ws = Files.createDirectories(dir.resolve("ws/worker"));
    git(ws, "init", "-q", "-b", "colony/worker");
    Files.writeString(ws.resolve("README.md"), "hello\n");
    git(ws, "add", ".");
    git(ws, "commit", "-q", "-m", "base");
    Files.writeString(dir.resolve("colony.yaml"), "name: lean\ndefaults:\n  poll_interval: 1h\n");
    Files.createDirectories(dir.resolve("ants"));
    // Each session commits one line.
    String agent = "echo x >> f.txt && git add f.txt"
        + " && git -c user.name=t -c user.email=t@example.com -c commit.gpgsign=false commit -qm 'Fix the conflict'";
    Files.writeString(dir.resolve("ants/worker.yaml"), "name: worker\ndescription: works\ninstructions: work\n"
        + "engine: command\ncommand:\n  argv: [\"sh\", \"-c\", \"" + agent + "\"]\n");
    AntSpec spec = ColonyLoader.load(dir).ant("worker").orElseThrow().toBuilder()
        .merge(new MergeRepo("lean", "app", ws.toString(), "main", LandMode.REBASE, List.of("./test.sh"), 60, false,
            true, 3, 3600, dir.toString(), dir.resolve("scratch").toString(), null, null))
        .build();
    env = TestWorkflowEnvironment.newInstance();
    dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
    Worker worker = env.newWorker("q");
    worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class);
    List<String> posts = new CopyOnWriteArrayList<>();
    SessionActivitiesImpl sessions = new SessionActivitiesImpl(Map.<EngineKind, Engine>of(EngineKind.COMMAND,
        new CommandEngine()), (ChatPost p) -> posts.add(p.text()), new PrintStream(PrintStream.nullOutputStream()))
        .withWorkspaces(s -> ws);
    worker.registerActivitiesImplementations(sessions, new WorkspaceActivitiesImpl(),
        new ChatActivitiesImpl((ChatPost p) -> posts.add(p.text())), new Queue());
    env.start();
    AntWorkflow ant = env.getWorkflowClient().newWorkflowStub(AntWorkflow.class,
        WorkflowOptions.newBuilder().setWorkflowId(spec.workflowId()).setTaskQueue("q").build());
    WorkflowClient.start(ant::run, new AntRun(spec, null));
    // The first session's work has no task: with review it is not submitted by the ant.
    eventually(dev.colony.testing.Eventually.DEFAULT, () -> posts.stream().anyMatch(p -> p.contains("session 1")
        && p.contains("✅")), () -> "the first session; posts: " + posts);
    String before = git(ws, "rev-parse", "HEAD");

    ant.mergeNews(new MergeNews(MergeNews.Kind.REWORK, "app", "worker-1", "Your work conflicts with main in: f.txt",
        null, List.of("f.txt"), "main"));
    eventually(dev.colony.testing.Eventually.DEFAULT, () -> submissions.size() == 1,
        () -> "the rework resubmitted; posts: " + posts);
    Submission s = submissions.get(0);
    String head = git(ws, "rev-parse", "HEAD");
    assertEquals(head, s.head(), "the head the rework's session ended at (it committed after " + before + ")");
    assertEquals(before, git(ws, "rev-parse", "HEAD~1"), "one commit made by the rework's session");
    assertNull(s.taskId());
    ant.stop();
  }
}
