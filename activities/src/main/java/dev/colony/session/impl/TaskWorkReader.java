package dev.colony.session.impl;

import dev.colony.engine.Processes;
import dev.colony.task.TaskWork;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a task's work produced on the ant's branch, read with git in the session's workspace: the
 * commits since the task began ({@code git log base..HEAD}) and their diff stat
 * ({@code git diff --numstat base HEAD}), the branch and its head. It never fails a session: a
 * workspace that is not a git repository, a base that no longer exists, a git that hangs, all
 * give null (the report then carries no work). Output is bounded: a branch with ten thousand
 * commits costs no more history than one with fifty.
 */
final class TaskWorkReader {
  private static final Logger log = LoggerFactory.getLogger(TaskWorkReader.class);
  /** Bytes of git output read at most; the rest is drained unread. */
  static final int MAX_OUTPUT = 256 * 1024;
  private static final long TIMEOUT_SECONDS = 30;
  /** A commit's subject as the report carries it. */
  static final int SUBJECT_CHARS = 200;

  private TaskWorkReader() {}

  /** The commit HEAD is at in {@code workspace}; null when it is not a git repository (or has no commit). */
  static String head(Path workspace) {
    String out = git(null, workspace, "rev-parse", "--verify", "--quiet", "HEAD");
    return out == null || out.isBlank() ? null : out.strip();
  }

  /**
   * Git's empty tree: the base of a task whose first session began before the workspace had a
   * commit (the agent made the repository): all its commits are the task's work.
   */
  static final String EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

  /** The work since {@code base} (a commit; null: the workspace had no commit then); null when git cannot tell. */
  static TaskWork since(Path workspace, String base) {
    return since(workspace, base, null);
  }

  /**
   * The work since {@code base}, read by git inside {@code walls} (the session's: the workspace is
   * the ant's, with its config, attributes and filters; what they name runs as the ant, never as
   * the worker); null walls: on the worker (no sandbox).
   */
  static TaskWork since(Path workspace, String base, dev.colony.sandbox.Confinement walls) {
    if (base == null) {
      base = EMPTY_TREE;
    }
    if (!base.matches("[0-9a-fA-F]{4,64}")) {
      return null; // never handed to git as an option or a range it does not expect
    }
    String head = head(walls, workspace);
    if (head == null) {
      return null;
    }
    String branch = git(walls, workspace, "rev-parse", "--abbrev-ref", "HEAD");
    String logOut = git(walls, workspace, "log", "--no-color", "--max-count=" + TaskWork.MAX_COMMITS,
        "--format=%h%x09%s", base.equals(EMPTY_TREE) ? "HEAD" : base + "..HEAD");
    String numstat = git(walls, workspace, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--numstat", base, "HEAD");
    if (logOut == null || numstat == null) {
      return null;
    }
    List<TaskWork.Commit> commits = new ArrayList<>();
    for (String line : logOut.split("\n")) {
      int tab = line.indexOf('\t');
      if (tab > 0) {
        String subject = line.substring(tab + 1);
        commits.add(new TaskWork.Commit(line.substring(0, tab),
            subject.length() <= SUBJECT_CHARS ? subject : dev.colony.text.SafeText.cut(subject, SUBJECT_CHARS)));
      }
    }
    List<String> files = new ArrayList<>();
    int changed = 0;
    long added = 0;
    long removed = 0;
    for (String line : numstat.split("\n")) {
      String[] f = line.split("\t", 3);
      if (f.length < 3) {
        continue;
      }
      changed++;
      added += count(f[0]);
      removed += count(f[1]);
      files.add(f[2]);
    }
    String b = branch == null || branch.isBlank() || branch.strip().equals("HEAD") ? null : branch.strip();
    return new TaskWork(b, base, head, commits, changed, added, removed, files);
  }

  /** HEAD of the workspace, read by git inside {@code walls} (null: on the worker); null when it has none. */
  static String head(dev.colony.sandbox.Confinement walls, Path workspace) {
    String out = git(walls, workspace, "rev-parse", "--verify", "--quiet", "HEAD");
    return out == null || out.isBlank() ? null : out.strip();
  }

  /** numstat says "-" for a binary file. */
  private static long count(String s) {
    try {
      return Long.parseLong(s.strip());
    } catch (NumberFormatException binary) {
      return 0;
    }
  }

  /** git's output, or null when it failed (not a repository, a bad revision, a timeout). */
  private static String git(dev.colony.sandbox.Confinement walls, Path cwd, String... args) {
    List<String> cmd = new ArrayList<>(List.of("git", "-C", cwd.toString()));
    // No hooks, no fsmonitor daemon, wherever it runs.
    cmd.addAll(dev.colony.sandbox.GitWalls.SAFE_CONFIG);
    cmd.addAll(List.of(args));
    try {
      ProcessBuilder pb = walls == null ? new ProcessBuilder(Processes.tiedToWorker(cmd))
          : walls.processFor(cmd, Map.of(), Map.of("GIT_TERMINAL_PROMPT", "0", "GIT_PAGER", "cat"), cwd);
      pb.redirectErrorStream(false).redirectError(ProcessBuilder.Redirect.DISCARD);
      pb.environment().put("GIT_TERMINAL_PROMPT", "0");
      pb.environment().put("GIT_PAGER", "cat");
      // Bounded in time whatever the repository holds (a FIFO where git reads a file never ends).
      Processes.Captured c = Processes.capture(pb, java.time.Duration.ofSeconds(TIMEOUT_SECONDS), MAX_OUTPUT);
      if (c.exit() != 0) {
        return null;
      }
      String out = c.output();
      int cut = out.lastIndexOf('\n');
      return out.getBytes(StandardCharsets.UTF_8).length >= MAX_OUTPUT && cut >= 0 ? out.substring(0, cut + 1) : out;
    } catch (IOException e) {
      log.debug("git {} in {}: {}", args[0], cwd, e.toString());
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

}
