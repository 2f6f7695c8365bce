package dev.colony.config;

import dev.colony.merge.LandMode;
import dev.colony.merge.Undeclared;
import dev.colony.merge.MergeRepo;
import dev.colony.spec.AntSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code merge.repos} of colony.yaml (each repository's merge queue) and an ant's
 * {@code workspace.touches}: read, checked, and joined (an ant gets the queue of its repository).
 */
final class MergeReader {
  private MergeReader() {}

  private static final Pattern GITHUB_REPO = Pattern.compile("[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+");
  /** The longest glob of {@code workspace.touches}. */
  static final int MAX_GLOB = 200;

  /** The queues of {@code merge.repos}; empty when colony.yaml has no {@code merge:}. */
  static List<MergeRepo> read(Node root, Path colonyDir, String colonyName, String githubTokenVar) {
    return read(root, colonyDir, colonyName, githubTokenVar, new java.util.TreeMap<>());
  }

  /**
   * @param seeds filled with the repositories {@code create_from} makes at the first start: their
   *     absolute path → the seed directory's
   */
  static List<MergeRepo> read(Node root, Path colonyDir, String colonyName, String githubTokenVar,
      Map<String, String> seeds) {
    Node merge = root.child("merge");
    if (merge == null) {
      return List.of();
    }
    merge.allowOnly(ConfigSchema.COLONY.child("merge"));
    ConfigSchema.Section schema = ConfigSchema.COLONY.child("merge").child("repos");
    List<MergeRepo> repos = new ArrayList<>();
    Map<String, String> names = new HashMap<>();
    Map<String, String> repoOwners = new HashMap<>();
    int i = 0;
    for (Node r : merge.mappingList("repos")) {
      int index = i++;
      r.allowOnly(schema);
      String name = r.literal("name", true);
      if (name != null && !AntReader.NAME.matcher(name).matches()) {
        r.problem("name", "invalid queue name '" + name
            + "': use letters, digits, '-', '_' or '.', starting with a letter or digit (at most 63)");
        name = null;
      } else if (name != null && names.putIfAbsent(name, "merge.repos[" + index + "]") != null) {
        r.problem("name", "duplicate queue name '" + name + "': also used by " + names.get(name));
        name = null;
      }
      String repo = repoOf(r, colonyDir, seeds);
      String label = name != null ? "'" + name + "'" : "merge.repos[" + index + "]";
      if (repo != null && repoOwners.putIfAbsent(repo, label) != null) {
        r.problem("repo", "this repository already has a queue (" + repoOwners.get(repo)
            + "): one queue per repository");
        repo = null;
      }
      String target = r.literal("target", false);
      if (target != null) {
        String why = branchProblem(target);
        if (why != null) {
          r.problem("target", "invalid branch name '" + target + "': " + why);
          target = null;
        }
      }
      LandMode land = r.enumValue("land", LandMode.class, LandMode.REBASE);
      List<String> test = testCommand(r);
      Long timeout = r.durationSeconds("test_timeout");
      String testSandbox = r.literal("test_sandbox", false);
      if (testSandbox != null && !List.of(MergeRepo.TEST_SANDBOX_ON, MergeRepo.TEST_SANDBOX_OPEN,
          MergeRepo.TEST_SANDBOX_OFF).contains(testSandbox)) {
        r.problem("test_sandbox", "invalid value '" + testSandbox + "': expected on, open (the host's network) or off");
        testSandbox = null;
      }
      List<String> testSecrets = r.has("test_secrets") ? r.stringList("test_secrets", false) : List.of();
      for (String v : testSecrets) {
        if (!v.matches("[A-Za-z_][A-Za-z0-9_]*")) {
          r.problem("test_secrets", "invalid variable name '" + v + "': expected a name such as NPM_TOKEN");
        }
      }
      long testMemory = 0;
      if (r.has("test_memory")) {
        String raw = r.raw("test_memory");
        if ("off".equals(raw) || OverseerReader.SWITCH_OFF.contains(String.valueOf(raw))) {
          testMemory = -1;
        } else {
          Long bytes = SandboxReader.size(raw);
          if (bytes == null || bytes < SandboxReader.MIN_MEMORY) {
            r.problem("test_memory", bytes == null
                ? "invalid size '" + raw + "': expected a number with a unit, such as 512m or 8g (or off)"
                : "at least 64m: " + raw + " is too little for a test run");
          } else {
            testMemory = bytes;
          }
        }
      }
      int testProcesses = 0;
      if (r.has("test_processes")) {
        String raw = r.raw("test_processes");
        if ("off".equals(raw) || OverseerReader.SWITCH_OFF.contains(String.valueOf(raw))) {
          testProcesses = -1;
        } else if (raw != null && raw.matches("\\d{1,7}") && Integer.parseInt(raw) >= 16) {
          testProcesses = Integer.parseInt(raw);
        } else {
          r.problem("test_processes", "expected a whole number of at least 16 (or off); found '" + raw + "'");
        }
      }
      boolean push = r.bool("push", false);
      boolean review = r.bool("review", false);
      Integer maxTries = r.wholeNumber("max_tries");
      Long aging = r.durationSeconds("aging");
      Undeclared undeclared = r.enumValue("undeclared", Undeclared.class, Undeclared.CHANGED);
      String github = r.literal("github_repo", false);
      if (github != null && !GITHUB_REPO.matcher(github).matches()) {
        r.problem("github_repo", "invalid repository '" + github + "': expected owner/name");
        github = null;
      } else if (github != null && land != LandMode.PULL_REQUEST) {
        r.problem("github_repo", "only used with land: pull_request (this queue lands by " + land.configName() + ")");
        github = null;
      }
      String tokenVar = null;
      if (land == LandMode.PULL_REQUEST) {
        if (github == null && !r.has("github_repo")) {
          r.problem("github_repo", "required with land: pull_request: the GitHub repository (owner/name) the pull "
              + "requests are opened on");
        }
        if (githubTokenVar == null) {
          r.problem("land", "pull_request needs integrations.github.token (set token: ${GITHUB_TOKEN})");
        }
        tokenVar = githubTokenVar;
      }
      if (name == null || repo == null) {
        continue;
      }
      boolean remote = AntReader.looksLikeUrl(repo);
      repos.add(new MergeRepo(colonyName, name, repo, target, land, test,
          timeout == null ? MergeRepo.DEFAULT_TEST_TIMEOUT_SECONDS : timeout, push || remote, review,
          maxTries == null ? MergeRepo.DEFAULT_MAX_TRIES : maxTries,
          aging == null ? MergeRepo.DEFAULT_AGING_SECONDS : aging, colonyDir.toString(),
          colonyDir.resolve(".colony").resolve("merge").resolve(name).toString(), github, tokenVar, undeclared,
          testSandbox, testSecrets, testMemory, testProcesses));
    }
    return repos;
  }

  /**
   * {@code repo}: a URL as written, or a path made absolute against the colony directory (as
   * {@link AntReader} makes {@code workspace.repo}) that must be a git repository.
   */
  private static String repoOf(Node r, Path colonyDir, Map<String, String> seeds) {
    String repo = r.reference("repo", true);
    String createFrom = r.literal("create_from", false);
    if (repo == null) {
      return null;
    }
    String target = r.resolved(repo);
    if (target == null) {
      return null;
    }
    if (AntReader.looksLikeUrl(target)) {
      if (createFrom != null) {
        r.problem("create_from", "only for a local repository path (this repo is a URL)");
      }
      return repo;
    }
    Path p = colonyDir.resolve(target).normalize();
    String shown = repo.equals(target) ? p.toString() : repo; // a path from the environment is a secret too
    if (createFrom != null) {
      Path seed = colonyDir.resolve(createFrom).normalize();
      if (!Files.isDirectory(seed)) {
        r.problem("create_from", "no such directory: " + seed);
        return null;
      }
      if (!Files.exists(p)) {
        seeds.put(p.toString(), seed.toString()); // made at the first start
        return repo.equals(target) ? p.toString() : repo;
      }
    }
    if (!Files.isDirectory(p)) {
      r.problem("repo", "no such directory: " + shown + " (give a git repository path or URL)");
      return null;
    }
    if (!isGitRepository(p)) {
      r.problem("repo", "not a git repository: " + shown + " (git init it, or give a clone's path)");
      return null;
    }
    return repo.equals(target) ? p.toString() : repo;
  }

  /** A worktree (a {@code .git} directory or file) or a bare repository (HEAD, objects/, refs/). */
  static boolean isGitRepository(Path p) {
    return Files.exists(p.resolve(".git")) || Files.isRegularFile(p.resolve("HEAD"))
        && Files.isDirectory(p.resolve("objects")) && Files.isDirectory(p.resolve("refs"));
  }

  private static List<String> testCommand(Node r) {
    if (!r.has("test")) {
      return List.of();
    }
    if (!r.isList("test")) {
      String line = r.text("test", false);
      return line == null || line.isBlank() ? List.of() : List.of("/bin/sh", "-c", line);
    }
    List<String> argv = r.stringList("test", true);
    if (argv != null && argv.isEmpty()) {
      r.problem("test", "an empty list: give the program and its arguments, e.g. [\"./test.sh\"], or leave test out");
    }
    return argv == null ? List.of() : argv;
  }

  /**
   * Why git would refuse {@code name} as a branch ({@code git check-ref-format --branch}, kept
   * strict: letters, digits and {@code . _ - /} only); null when it is fine.
   */
  static String branchProblem(String name) {
    if (name.isEmpty()) {
      return "empty";
    }
    if (name.length() > 200) {
      return "longer than 200 characters";
    }
    if (!name.matches("[A-Za-z0-9._/-]+")) {
      return "use letters, digits, '.', '_', '-' and '/'";
    }
    if (name.startsWith("-")) {
      return "starts with '-'";
    }
    if (name.startsWith("/") || name.endsWith("/") || name.contains("//")) {
      return "an empty part between '/'";
    }
    if (name.contains("..")) {
      return "contains '..'";
    }
    if (name.endsWith(".")) {
      return "ends with '.'";
    }
    for (String part : name.split("/")) {
      if (part.startsWith(".")) {
        return "a part starts with '.'";
      }
      if (part.endsWith(".lock")) {
        return "a part ends with '.lock'";
      }
    }
    if (name.equals("HEAD")) {
      return "HEAD is not a branch";
    }
    return null;
  }

  /** {@code workspace.touches}: repository-relative globs; null when absent. */
  static List<String> touches(Node ws) {
    List<String> globs = ws.stringList("touches", false);
    if (globs == null) {
      return null;
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < globs.size(); i++) {
      String g = globs.get(i).strip();
      String why = globProblem(g);
      if (why != null) {
        ws.problem("touches[" + i + "]", why);
      } else if (!out.contains(g)) {
        out.add(g);
      }
    }
    return out;
  }

  /** Why a {@code touches} glob is refused; null when it is fine. */
  static String globProblem(String g) {
    if (g.isEmpty()) {
      return "an empty glob: give a repository-relative path such as src/api/**";
    }
    if (g.length() > MAX_GLOB) {
      return "longer than " + MAX_GLOB + " characters";
    }
    if (g.startsWith("/") || g.startsWith("~") || g.startsWith("\\") || g.matches("[A-Za-z]:.*")) {
      return "'" + g + "' is absolute: give a path relative to the repository, such as src/api/**";
    }
    for (String part : g.split("[/\\\\]")) {
      if (part.equals("..")) {
        return "'" + g + "' leaves the repository ('..'): give a path inside it";
      }
    }
    return null;
  }

  /** Each ant whose resolved {@code workspace.repo} is a queue's repository gets that queue. */
  static List<AntSpec> join(List<AntSpec> ants, List<MergeRepo> repos) {
    return join(ants, repos, new ArrayList<>());
  }

  /**
   * @param problems where an ant that cannot join its repository's queue is reported: one whose
   *     branch is the queue's target (the queue would push the ant's copy of the target over it)
   */
  static List<AntSpec> join(List<AntSpec> ants, List<MergeRepo> repos, List<Problem> problems) {
    if (repos.isEmpty()) {
      return ants;
    }
    List<AntSpec> out = new ArrayList<>();
    java.util.Map<String, String> branchOwners = new java.util.HashMap<>();
    for (AntSpec a : ants) {
      String repo = a.workspace() == null ? null : a.workspace().repo();
      MergeRepo queue = repo == null ? null
          : repos.stream().filter(m -> m.repo().equals(repo)).findFirst().orElse(null);
      if (queue != null) {
        String branch = a.workspace().branchOf(a.name());
        String file = a.sourceFile() == null ? "ants/" + a.name() + ".yaml" : a.sourceFile();
        if (branch.equals(queue.target())) {
          problems.add(new Problem(file, "workspace.branch", "'" + branch + "' is the target of merge "
              + "queue '" + queue.name() + "': an ant works on a branch of its own, and the queue lands it on "
              + queue.target() + " (leave branch out: colony/" + a.name() + ")"));
          queue = null;
        } else if (branchOwners.putIfAbsent(queue.name() + " " + branch, a.name()) != null) {
          problems.add(new Problem(file, "workspace.branch", "'" + branch + "' is also the branch of ant "
              + branchOwners.get(queue.name() + " " + branch) + " in the same repository: each ant needs a branch of its own"));
          queue = null;
        }
      }
      out.add(queue == null ? a : a.toBuilder().merge(queue).build());
    }
    return out;
  }
}
