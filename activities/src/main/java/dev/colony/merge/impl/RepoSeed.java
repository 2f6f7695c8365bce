package dev.colony.merge.impl;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code create_from}: a repository that does not exist yet is made as a bare repository whose
 * target branch holds one commit of the seed directory's files. For examples and trials: a colony
 * that brings its own small project runs from a clean clone with one command.
 */
public final class RepoSeed {
  private RepoSeed() {}

  /**
   * Makes {@code repo} from {@code seed} unless it exists.
   *
   * @return true when it was made now
   * @throws IOException when git fails (the message says which command and why)
   */
  public static boolean createIfMissing(Path repo, Path seed, String target) throws IOException, InterruptedException {
    if (Files.exists(repo)) {
      return false;
    }
    if (!Files.isDirectory(seed)) {
      throw new IOException("create_from: no such directory: " + seed);
    }
    Path parent = repo.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    // Built beside the target and moved into place: a half-made repository is never left where
    // the queue and the ants would find it.
    Path building = Files.createTempDirectory(parent, ".seeding-");
    try {
      Path bare = building.resolve("repo.git");
      git(building, "init", "-q", "--bare", "-b", target, bare.toString());
      Path work = building.resolve("work");
      git(building, "clone", "-q", bare.toString(), work.toString());
      copy(seed, work);
      git(work, "add", "-A");
      git(work, "-c", "user.name=Colony", "-c", "user.email=colony@localhost", "commit", "-q", "--allow-empty", "-m",
          "The project, from " + seed.getFileName());
      git(work, "push", "-q", "origin", "HEAD:refs/heads/" + target);
      try {
        Files.move(bare, repo, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      } catch (java.nio.file.FileAlreadyExistsException raced) {
        return false; // another start made it first
      }
      return true;
    } finally {
      MergeGit.deleteTree(building);
    }
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : s.toList()) {
        if (from.relativize(p).startsWith(".git")) {
          continue; // a seed that is itself a checkout: its files, not its history
        }
        Path dest = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(dest);
        } else {
          Files.copy(p, dest, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES,
              java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  private static void git(Path cwd, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("git", "-C", cwd.toString(), "-c", "core.hooksPath=/dev/null",
        "-c", "commit.gpgSign=false", "-c", "init.templateDir="));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("GIT_TERMINAL_PROMPT", "0");
    Process p = pb.start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IOException("git " + args[0] + " timed out");
    }
    if (p.exitValue() != 0) {
      throw new IOException("git " + String.join(" ", args) + " failed: " + out.strip());
    }
  }
}
