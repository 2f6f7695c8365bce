package dev.colony.merge;

import java.util.List;

/**
 * One repository's merge queue, as {@code colony.yaml}'s {@code merge.repos} entry sets it. The
 * queue's workflow ({@link MergeQueueWorkflow#workflowId}) carries it; an ant whose
 * {@code workspace.repo} is this repository carries it in its spec ({@code AntSpec.merge}).
 *
 * @param name the repository's name in the colony (letters, digits, '-', '_', '.'): the queue's id
 * @param repo a local path (absolute, resolved by the loader) or a git URL, as the ants' {@code workspace.repo}
 *     says it; may hold {@code ${VAR}} (a token in a URL), resolved on the worker only
 * @param target the branch work lands on (default {@code main})
 * @param test the test command's program and arguments, run in the queue's scratch worktree; empty: no test
 * @param testTimeoutSeconds the test command is killed (its whole process tree) after this long
 * @param push whether the target is updated on the repository's {@code origin} remote too
 *     ({@code push --force-with-lease}); always for a URL repository
 * @param review whether work waits for a human's approval (its task approved, or
 *     {@code colony merge approve}) before it lands
 * @param maxTries reworks (a conflict or a red test) of one item before it goes to a human
 * @param agingSeconds a waiting item rises one priority level per this long
 * @param colonyDir the colony's directory (for {@code .env} when references are resolved)
 * @param scratchDir where the queue keeps its scratch worktree (or clone): never an ant's worktree
 * @param githubRepo {@code owner/name} for pull requests (land: pull_request); null otherwise
 * @param githubTokenVar the {@code ${VAR}} holding the GitHub token for pull requests; null otherwise
 * @param undeclared what an ant that declares no paths holds ({@link Undeclared#CHANGED} when absent)
 * @param testSandbox the walls the test command runs in: {@code on} (the default, also for null: no
 *     network, no worker environment), {@code open} (the same with the host's network) or {@code off}
 *     (no walls: the worker's environment, as a trusted setup chooses)
 * @param testSecrets the worker's variables the test command is given inside its walls (names)
 * @param testMemoryBytes the test run's memory limit in its walls ({@link #DEFAULT_TEST_MEMORY} for
 *     0, as in histories from before the key; negative: none)
 * @param testProcesses the most processes and threads of the test run at once
 *     ({@link #DEFAULT_TEST_PROCESSES} for 0; negative: none)
 */
public record MergeRepo(String colony, String name, String repo, String target, LandMode land, List<String> test,
    long testTimeoutSeconds, boolean push, boolean review, int maxTries, long agingSeconds, String colonyDir,
    String scratchDir, String githubRepo, String githubTokenVar, Undeclared undeclared, String testSandbox,
    List<String> testSecrets, long testMemoryBytes, int testProcesses) {
  public static final String DEFAULT_TARGET = "main";
  public static final long DEFAULT_TEST_TIMEOUT_SECONDS = 600;
  public static final int DEFAULT_MAX_TRIES = 3;
  public static final long DEFAULT_AGING_SECONDS = 3600;
  /** A test run's memory limit unless set: a build with its tests needs more than an agent. */
  public static final long DEFAULT_TEST_MEMORY = 4L * 1024 * 1024 * 1024;
  /** A test run's process and thread limit unless set. */
  public static final int DEFAULT_TEST_PROCESSES = 4096;

  public MergeRepo {
    test = test == null ? List.of() : List.copyOf(test);
    target = target == null ? DEFAULT_TARGET : target;
    land = land == null ? LandMode.REBASE : land;
    undeclared = undeclared == null ? Undeclared.CHANGED : undeclared;
    testSandbox = testSandbox == null ? TEST_SANDBOX_ON : testSandbox;
    testSecrets = testSecrets == null ? List.of() : List.copyOf(testSecrets);
    testMemoryBytes = testMemoryBytes == 0 ? DEFAULT_TEST_MEMORY : testMemoryBytes;
    testProcesses = testProcesses == 0 ? DEFAULT_TEST_PROCESSES : testProcesses;
  }

  /** With its test's walls and their default limits. */
  public MergeRepo(String colony, String name, String repo, String target, LandMode land, List<String> test,
      long testTimeoutSeconds, boolean push, boolean review, int maxTries, long agingSeconds, String colonyDir,
      String scratchDir, String githubRepo, String githubTokenVar, Undeclared undeclared, String testSandbox,
      List<String> testSecrets) {
    this(colony, name, repo, target, land, test, testTimeoutSeconds, push, review, maxTries, agingSeconds, colonyDir,
        scratchDir, githubRepo, githubTokenVar, undeclared, testSandbox, testSecrets, 0, 0);
  }

  public static final String TEST_SANDBOX_ON = "on";
  public static final String TEST_SANDBOX_OPEN = "open";
  public static final String TEST_SANDBOX_OFF = "off";

  /** With how undeclared ants are held, its test in the default walls (no network, no secrets). */
  public MergeRepo(String colony, String name, String repo, String target, LandMode land, List<String> test,
      long testTimeoutSeconds, boolean push, boolean review, int maxTries, long agingSeconds, String colonyDir,
      String scratchDir, String githubRepo, String githubTokenVar, Undeclared undeclared) {
    this(colony, name, repo, target, land, test, testTimeoutSeconds, push, review, maxTries, agingSeconds, colonyDir,
        scratchDir, githubRepo, githubTokenVar, undeclared, null, null);
  }

  /** With its test's walls, undeclared ants holding what they changed. */
  public MergeRepo(String colony, String name, String repo, String target, LandMode land, List<String> test,
      long testTimeoutSeconds, boolean push, boolean review, int maxTries, long agingSeconds, String colonyDir,
      String scratchDir, String githubRepo, String githubTokenVar, String testSandbox, List<String> testSecrets) {
    this(colony, name, repo, target, land, test, testTimeoutSeconds, push, review, maxTries, agingSeconds, colonyDir,
        scratchDir, githubRepo, githubTokenVar, Undeclared.CHANGED, testSandbox, testSecrets);
  }

  /** A queue whose test runs in the default walls (no network, no secrets). */
  public MergeRepo(String colony, String name, String repo, String target, LandMode land, List<String> test,
      long testTimeoutSeconds, boolean push, boolean review, int maxTries, long agingSeconds, String colonyDir,
      String scratchDir, String githubRepo, String githubTokenVar) {
    this(colony, name, repo, target, land, test, testTimeoutSeconds, push, review, maxTries, agingSeconds, colonyDir,
        scratchDir, githubRepo, githubTokenVar, Undeclared.CHANGED, null, null);
  }

  /** Whether {@link #repo} is a URL (each host has its own clone; branches meet on the remote). */
  public boolean remote() {
    return repo.contains("://") || repo.startsWith("git@");
  }

  /** The queue's workflow id. */
  public String workflowId() {
    return MergeQueueWorkflow.workflowId(colony, name);
  }
}
