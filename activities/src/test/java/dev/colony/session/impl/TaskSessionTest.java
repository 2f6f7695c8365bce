package dev.colony.session.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.engine.PromptBuilder;
import dev.colony.spec.AntSpec;
import dev.colony.task.Priority;
import dev.colony.task.TaskBrief;
import dev.colony.task.TaskComment;
import dev.colony.task.TaskWork;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A session with a task from the board: its prompt, its environment, and the git work it reports. */
@Timeout(60)
class TaskSessionTest {
  @TempDir
  Path dir;

  private static TaskBrief brief(String base) {
    return new TaskBrief("c", "k7m2qx", "Fix the docs", "The README is wrong.\nFix it.", Priority.HIGH,
        List.of("docs", "easy"), List.of(new TaskComment("@bob", "second", 2_000), new TaskComment("@alice", "first", 1_000)),
        null, "ant/c/alpha#1", base, 0);
  }

  private static String git(Path repo, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("git", "-C", repo.toString(), "-c", "user.name=t", "-c",
        "user.email=t@example.com", "-c", "commit.gpgsign=false"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertTrue(p.waitFor(20, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), String.join(" ", cmd) + ": " + out);
    return out.strip();
  }

  @Test
  void theWorkIsTheCommitsAndDiffStatSinceTheBase() throws Exception {
    Path repo = Files.createDirectories(dir.resolve("repo"));
    git(repo, "init", "-q", "-b", "colony/alpha");
    Files.writeString(repo.resolve("README.md"), "one\ntwo\nthree\n");
    git(repo, "add", ".");
    git(repo, "commit", "-q", "-m", "base");
    String base = TaskWorkReader.head(repo);
    assertNotNull(base);
    Files.writeString(repo.resolve("README.md"), "one\n2\nthree\nfour\n");
    git(repo, "commit", "-q", "-am", "Fix the README");
    Files.writeString(repo.resolve("docs.md"), "new\n");
    git(repo, "add", ".");
    git(repo, "commit", "-q", "-m", "Add docs");

    TaskWork w = TaskWorkReader.since(repo, base);
    assertEquals("colony/alpha", w.branch());
    assertEquals(base, w.base());
    assertEquals(git(repo, "rev-parse", "HEAD"), w.head());
    assertEquals(List.of("Add docs", "Fix the README"), w.commits().stream().map(TaskWork.Commit::subject).toList(),
        "newest first");
    assertEquals(git(repo, "rev-parse", "--short", "HEAD"), w.commits().get(0).sha());
    assertEquals(2, w.filesChanged());
    assertEquals(List.of("README.md", "docs.md"), w.files());
    assertEquals(3, w.linesAdded());
    assertEquals(1, w.linesRemoved());
  }

  @Test
  void aRepositoryTheAgentMadeDuringTheTaskCountsAllItsCommits() throws Exception {
    Path repo = Files.createDirectories(dir.resolve("made"));
    assertNull(TaskWorkReader.head(repo), "no repository when the session began: no base");
    assertNull(TaskWorkReader.since(repo, null), "still none: no work");
    git(repo, "init", "-q", "-b", "main");
    git(repo, "commit", "-q", "--allow-empty", "-m", "start");
    Files.writeString(repo.resolve("notes.md"), "a\nb\n");
    git(repo, "add", ".");
    git(repo, "commit", "-q", "-m", "notes");
    TaskWork w = TaskWorkReader.since(repo, null);
    assertEquals(TaskWorkReader.EMPTY_TREE, w.base(), "kept as the task's base for its next sessions");
    assertEquals(List.of("notes", "start"), w.commits().stream().map(TaskWork.Commit::subject).toList());
    assertEquals(List.of("notes.md"), w.files());
    assertEquals(2, w.linesAdded());
    assertEquals(w.commits(), TaskWorkReader.since(repo, w.base()).commits(), "the same from the kept base");
  }

  @Test
  void gitErrorsGiveNoWorkAndNeverThrow() throws Exception {
    Path plain = Files.createDirectories(dir.resolve("plain"));
    assertNull(TaskWorkReader.head(plain), "not a repository");
    assertNull(TaskWorkReader.since(plain, "abc1234"));
    Path repo = Files.createDirectories(dir.resolve("repo"));
    git(repo, "init", "-q");
    assertNull(TaskWorkReader.head(repo), "no commit yet");
    Files.writeString(repo.resolve("a"), "a\n");
    git(repo, "add", ".");
    git(repo, "commit", "-q", "-m", "a");
    assertNull(TaskWorkReader.since(repo, "0123456789abcdef0123456789abcdef01234567"), "an unknown base");
    assertNull(TaskWorkReader.since(repo, "--output=/tmp/x"), "never an option");
    assertNull(TaskWorkReader.since(dir.resolve("missing"), "abc1234"));
  }

  @Test
  void thePromptCarriesTheTaskWithItsCommentsOldestFirst() {
    AntSpec spec = dev.colony.testing.Specs.ant("alpha").build();
    String prompt = PromptBuilder.build(spec, 3, List.of("a message"), null, List.of(), brief(null));
    assertTrue(prompt.contains("## Your task"), prompt);
    assertTrue(prompt.contains("- Task: k7m2qx Fix the docs"), prompt);
    assertTrue(prompt.contains("- Priority: high"), prompt);
    assertTrue(prompt.contains("- Labels: docs, easy"), prompt);
    assertTrue(prompt.contains("The README is wrong.\nFix it."), prompt);
    assertTrue(prompt.indexOf("@alice: first") < prompt.indexOf("@bob: second"), prompt);
    assertTrue(prompt.contains("When done, commit your work; your summary is what reviewers read."), prompt);
    assertTrue(prompt.indexOf("## Your task") < prompt.indexOf("## Messages for you"), prompt);
    assertTrue(!PromptBuilder.build(spec, 3, List.of(), null, List.of(), null).contains("## Your task"));
  }

  @Test
  void theEnvironmentNamesTheTaskAndItsFile() throws Exception {
    AntSpec spec = dev.colony.testing.Specs.ant("alpha").colonyDir(dir.toString()).build();
    Map<String, String> env = SessionEnvironment.NONE.forSession(spec, 1, brief(null));
    assertEquals("k7m2qx", env.get("COLONY_TASK_ID"));
    assertEquals("Fix the docs", env.get("COLONY_TASK_TITLE"));
    Path file = Path.of(env.get("COLONY_TASK_FILE"));
    assertEquals(PromptBuilder.taskSection(brief(null)), Files.readString(file));
    assertTrue(file.startsWith(dir));
    Map<String, String> none = SessionEnvironment.NONE.forSession(spec, 1, null);
    assertNull(none.get("COLONY_TASK_ID"));
  }
}
