package dev.colony.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.merge.LandMode;
import dev.colony.merge.MergeRepo;
import dev.colony.spec.AntSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** colony.yaml's {@code merge.repos} and an ant's {@code workspace.touches}. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class MergeConfigTest {
  @TempDir
  Path tmp;

  private static final String ANT = "name: %s\ndescription: d\ninstructions: do it\n";

  /** A colony with a git repository at ./repo and a bare one at ./bare.git. */
  private Path colony(String colonyYaml, Map<String, String> ants) throws IOException {
    Path dir = Files.createTempDirectory(tmp, "colony");
    Files.writeString(dir.resolve("colony.yaml"), colonyYaml);
    Files.createDirectories(dir.resolve("repo/.git"));
    Files.createDirectories(dir.resolve("bare.git/objects"));
    Files.createDirectories(dir.resolve("bare.git/refs"));
    Files.writeString(dir.resolve("bare.git/HEAD"), "ref: refs/heads/main\n");
    Files.createDirectories(dir.resolve("plain"));
    Files.createDirectories(dir.resolve("ants"));
    for (Map.Entry<String, String> a : ants.entrySet()) {
      Files.writeString(dir.resolve("ants/" + a.getKey() + ".yaml"), String.format(ANT, a.getKey()) + a.getValue());
    }
    return dir;
  }

  private static final Map<String, String> ENV = Map.of("GITHUB_TOKEN", "gh-secret");

  private String errors(String colonyYaml, Map<String, String> ants) throws Exception {
    Path dir = colony(colonyYaml, ants);
    return assertThrows(ConfigException.class, () -> new ColonyLoader(ENV).loadDir(dir)).getMessage();
  }

  @Test
  void aQueueIsReadWithEveryKeyAndItsAntsGetIt() throws Exception {
    Map<String, String> ants = new LinkedHashMap<>();
    ants.put("alpha", "workspace:\n  repo: ./repo\n  touches: [src/api/**, 'docs/*.md', src/api/**]\n");
    ants.put("beta", "workspace:\n  repo: repo/\n");
    ants.put("gamma", "workspace:\n  repo: ./bare.git\n");
    ants.put("delta", "");
    Path dir = colony("name: c\nintegrations:\n  github:\n    token: ${GITHUB_TOKEN}\nmerge:\n  repos:\n"
        + "    - name: app\n      repo: ./repo\n      target: release/v2\n      land: squash\n      undeclared: everything\n"
        + "      test: [\"./test.sh\", \"--fast\"]\n      test_timeout: 90s\n      push: true\n      review: true\n"
        + "      max_tries: 5\n      aging: 30m\n      test_sandbox: open\n      test_secrets: [NPM_TOKEN]\n"
        + "      test_memory: 8g\n      test_processes: off\n"
        + "    - name: lib\n      repo: bare.git\n      land: pull_request\n      github_repo: acme/lib\n"
        + "      test: ./test.sh && echo ok\n", ants);
    LoadedColony c = new ColonyLoader(ENV).loadDir(dir);
    String root = dir.toAbsolutePath().normalize().toString();
    MergeRepo app = new MergeRepo("c", "app", root + "/repo", "release/v2", LandMode.SQUASH,
        List.of("./test.sh", "--fast"), 90, true, true, 5, 1800, root, root + "/.colony/merge/app", null, null,
        dev.colony.merge.Undeclared.EVERYTHING, "open", List.of("NPM_TOKEN"), 8L << 30, -1);
    MergeRepo lib = new MergeRepo("c", "lib", root + "/bare.git", "main", LandMode.PULL_REQUEST,
        List.of("/bin/sh", "-c", "./test.sh && echo ok"), 600, false, false, 3, 3600, root,
        root + "/.colony/merge/lib", "acme/lib", "GITHUB_TOKEN");
    assertEquals(List.of(app, lib), c.merge());
    assertEquals(app, c.ant("alpha").orElseThrow().merge());
    assertEquals(app, c.ant("beta").orElseThrow().merge(), "repo/ and ./repo are one repository");
    assertEquals(lib, c.ant("gamma").orElseThrow().merge());
    assertNull(c.ant("delta").orElseThrow().merge());
    assertEquals(List.of("src/api/**", "docs/*.md"), c.ant("alpha").orElseThrow().workspace().touches());
    assertEquals(List.of(), c.ant("beta").orElseThrow().workspace().touches());
    assertEquals(app, c.mergeRepo("app").orElseThrow());
  }

  @Test
  void defaultsAndAUrlRepositoryAlwaysPushes() throws Exception {
    Path dir = colony("name: c\nmerge:\n  repos:\n    - name: app\n      repo: ./repo\n"
        + "    - name: remote\n      repo: https://example.com/acme/app.git\n",
        Map.of("a", "workspace:\n  repo: https://example.com/acme/app.git\n"));
    LoadedColony c = new ColonyLoader(Map.of()).loadDir(dir);
    MergeRepo app = c.merge().get(0);
    assertEquals("main", app.target());
    assertEquals(LandMode.REBASE, app.land());
    assertEquals(List.of(), app.test());
    assertEquals(600, app.testTimeoutSeconds());
    assertEquals(3, app.maxTries());
    assertEquals(3600, app.agingSeconds());
    assertEquals("on", app.testSandbox(), "the test runs in walls unless the queue says otherwise");
    assertEquals(List.of(), app.testSecrets());
    assertEquals(dev.colony.merge.Undeclared.CHANGED, app.undeclared(), "an ant that declares no paths holds what it changed");
    assertTrue(!app.push() && !app.review());
    assertEquals("merge/c/app", app.workflowId());
    MergeRepo remote = c.merge().get(1);
    assertTrue(remote.push() && remote.remote());
    assertEquals(remote, c.ant("a").orElseThrow().merge());
    assertEquals(List.of(), new ColonyLoader(Map.of()).loadDir(colony("name: c\n", Map.of())).merge());
  }

  @Test
  void eachMistakeNamesTheFileTheFieldAndWhatIsWrong() throws Exception {
    String e = errors("name: c\nmerge:\n  repos:\n"
        + "    - name: app\n      repo: ./repo\n      target: 'bad..name'\n      test_timeout: 25h\n"
        + "    - name: app\n      repo: ./bare.git\n      max_tries: 0\n      test_sandbox: maybe\n"
        + "      test_secrets: ['not a name']\n      test_memory: lots\n      test_processes: 3\n"
        + "    - name: again\n      repo: repo\n"
        + "    - name: 'no way'\n      repo: ./missing\n"
        + "    - name: plain\n      repo: ./plain\n      land: merge\n      undeclared: nothing\n"
        + "    - name: pr\n      repo: https://example.com/pr.git\n      land: pull_request\n"
        + "    - name: stray\n      repo: https://example.com/x.git\n      github_repo: acme/x\n      test: []\n      max_tries: 101\n"
        + "    - repo: https://example.com/y.git\n      test_timeout: 0s\n      aging: 5s\n      wat: 1\n",
        Map.of());
    assertTrue(e.contains("colony.yaml"), e);
    assertTrue(e.contains("merge.repos[0].target: invalid branch name 'bad..name': contains '..'"), e);
    assertTrue(e.contains("merge.repos[0].test_timeout: '25h' is too long: at most 24h"), e);
    assertTrue(e.contains("merge.repos[1].name: duplicate queue name 'app': also used by merge.repos[0]"), e);
    assertTrue(e.contains("merge.repos[1].max_tries: expected a whole number greater than 0, found '0'"), e);
    assertTrue(e.contains("merge.repos[1].test_sandbox: invalid value 'maybe'"), e);
    assertTrue(e.contains("merge.repos[1].test_secrets: invalid variable name 'not a name'"), e);
    assertTrue(e.contains("merge.repos[1].test_memory: invalid size 'lots'"), e);
    assertTrue(e.contains("merge.repos[1].test_processes: expected a whole number of at least 16 (or off); found '3'"), e);
    assertTrue(e.contains("merge.repos[2].repo: this repository already has a queue ('app'): one queue per repository"), e);
    assertTrue(e.contains("merge.repos[3].name: invalid queue name 'no way'"), e);
    assertTrue(e.contains("merge.repos[3].repo: no such directory: "), e);
    assertTrue(e.contains("merge.repos[4].repo: not a git repository: "), e);
    assertTrue(e.contains("merge.repos[4].land: invalid value 'merge'"), e);
    assertTrue(e.contains("merge.repos[4].undeclared: invalid value 'nothing': expected one of \"changed\", \"everything\""), e);
    assertTrue(e.contains("merge.repos[5].github_repo: required with land: pull_request"), e);
    assertTrue(e.contains("merge.repos[5].land: pull_request needs integrations.github.token"), e);
    assertTrue(e.contains("merge.repos[6].github_repo: only used with land: pull_request"), e);
    assertTrue(e.contains("merge.repos[6].test: an empty list"), e);
    assertTrue(e.contains("merge.repos[6].max_tries: must be between 1 and 100"), e);
    assertTrue(e.contains("merge.repos[7].name: required"), e);
    assertTrue(e.contains("merge.repos[7].test_timeout: must be longer than 0s"), e);
    assertTrue(e.contains("merge.repos[7].aging: at least 1m"), e);
    assertTrue(e.contains("merge.repos[7].wat: unknown key 'wat'"), e);
  }

  @Test
  void badTouchesGlobsAreRefused() throws Exception {
    String e = errors("name: c\n", Map.of("a", "workspace:\n  repo: ./repo\n  touches: ['/etc/**', '../x/*', '', 'a/../../b', "
        + "'" + "x".repeat(201) + "', '~/y', 'ok/**']\n"));
    assertTrue(e.contains("ants/a.yaml"), e);
    assertTrue(e.contains("workspace.touches[0]: '/etc/**' is absolute"), e);
    assertTrue(e.contains("workspace.touches[1]: '../x/*' leaves the repository"), e);
    assertTrue(e.contains("workspace.touches[2]: an empty glob"), e);
    assertTrue(e.contains("workspace.touches[3]: 'a/../../b' leaves the repository"), e);
    assertTrue(e.contains("workspace.touches[4]: longer than 200 characters"), e);
    assertTrue(e.contains("workspace.touches[5]: '~/y' is absolute"), e);
    assertTrue(!e.contains("touches[6]"), e);
  }

  @Test
  void branchNamesGitWouldRefuse() {
    for (String ok : List.of("main", "release/v2", "feature-x_1.2", "a/b/c")) {
      assertNull(MergeReader.branchProblem(ok), ok);
    }
    for (String bad : List.of("", "-x", "/main", "main/", "a//b", "a..b", "main.", ".hidden", "a/.b", "x.lock",
        "a b", "a~1", "a^", "a:b", "a?", "a*", "a[", "a\\b", "@{u}", "HEAD", "x".repeat(201))) {
      assertTrue(MergeReader.branchProblem(bad) != null, bad);
    }
  }

  @Test
  void anAntsBranchMayBeNeitherTheTargetNorAnotherAntsAndCreateFromAcceptsAMissingRepository() throws Exception {
    Map<String, String> ants = new LinkedHashMap<>();
    ants.put("alpha", "workspace:\n  repo: ./repo\n  branch: main\n");
    ants.put("beta", "workspace:\n  repo: ./repo\n  branch: shared\n");
    ants.put("gamma", "workspace:\n  repo: ./repo\n  branch: shared\n");
    String e = errors("name: c\nmerge:\n  repos:\n    - name: app\n      repo: ./repo\n", ants);
    assertTrue(e.contains("ants/alpha.yaml:\n  workspace.branch: 'main' is the target of merge queue 'app'"), e);
    assertTrue(e.contains("ants/gamma.yaml:\n  workspace.branch: 'shared' is also the branch of ant beta"), e);

    Path dir = colony("name: c\nmerge:\n  repos:\n    - name: app\n      repo: .colony/app.git\n"
        + "      create_from: seed\n", Map.of("alpha", "workspace:\n  repo: .colony/app.git\n"));
    Files.createDirectories(dir.resolve("seed"));
    LoadedColony c = new ColonyLoader(ENV).loadDir(dir);
    String repo = dir.toAbsolutePath().normalize().resolve(".colony/app.git").toString();
    assertEquals(Map.of(repo, dir.toAbsolutePath().normalize().resolve("seed").toString()), c.seeds());
    assertEquals(repo, c.ant("alpha").orElseThrow().merge().repo());

    String missingSeed = errors("name: c\nmerge:\n  repos:\n    - name: app\n      repo: .colony/x.git\n"
        + "      create_from: nope\n", Map.of());
    assertTrue(missingSeed.contains("merge.repos[0].create_from: no such directory: "), missingSeed);
  }
}
