package dev.colony.merge.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** create_from: a bare repository made once from a seed directory. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class RepoSeedTest {
  @TempDir
  Path tmp;

  private static String git(Path cwd, String... args) throws Exception {
    var cmd = new java.util.ArrayList<>(java.util.List.of("git", "-C", cwd.toString()));
    cmd.addAll(java.util.List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    return out;
  }

  @Test
  void makesABareRepositoryWithTheSeedOnTheTargetOnce() throws Exception {
    Path seed = Files.createDirectories(tmp.resolve("seed/sub"));
    Files.writeString(seed.resolve("../a.txt"), "a\n");
    Files.writeString(seed.resolve("b.txt"), "b\n");
    Path repo = tmp.resolve("x/.colony/app.git");
    assertTrue(RepoSeed.createIfMissing(repo, tmp.resolve("seed"), "trunk"));
    assertEquals("true", git(repo, "rev-parse", "--is-bare-repository").strip());
    assertEquals("a.txt\nsub/b.txt", git(repo, "ls-tree", "-r", "--name-only", "trunk").strip());
    String head = git(repo, "rev-parse", "trunk");
    assertFalse(RepoSeed.createIfMissing(repo, tmp.resolve("seed"), "trunk"), "an existing repository is left alone");
    assertEquals(head, git(repo, "rev-parse", "trunk"));
    try (var s = Files.list(repo.getParent())) {
      assertEquals(1, s.count(), "nothing left beside it");
    }
  }

  @Test
  void aMissingSeedIsAClearError() {
    var e = assertThrows(java.io.IOException.class,
        () -> RepoSeed.createIfMissing(tmp.resolve("r.git"), tmp.resolve("nope"), "main"));
    assertTrue(e.getMessage().startsWith("create_from: no such directory: "), e.getMessage());
  }
}
