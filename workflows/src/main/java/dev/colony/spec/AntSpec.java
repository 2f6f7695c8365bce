package dev.colony.spec;

import dev.colony.errorpolicy.ErrorPolicy;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * Everything an ant's workflow needs, as validated from {@code ants/<name>.yaml} merged with the
 * colony defaults. Holds no secret values: free text keeps its {@code ${VAR}} names, which the
 * worker resolves from its own environment when a session runs.
 *
 * @param colonyDir absolute path of the colony directory the spec was loaded from
 * @param sourceFile the ant's file, relative to the colony directory (for messages)
 * @param cron 5-field cron expression of the schedule, or null
 * @param timezone zone the cron expression is read in (IANA id)
 * @param pollIntervalSeconds sleep between sessions of a continuous ant (0 = none)
 * @param sessionTimeoutSeconds hard bound on one session
 * @param heartbeatTimeoutSeconds how long a silent session activity is trusted before retry
 * @param errorPolicy the ant's own error policy: backoff, thresholds, grace, watchdog, budgets
 * @param continueAsNewEvery sessions per workflow run before continue-as-new
 * @param overseer the overseer watching the agent's turns; null for none
 * @param notices where notices that the ant needs a human go besides the chat; null for none
 */
public record AntSpec(
    String colony,
    String name,
    String description,
    String instructions,
    EngineKind engine,
    ClaudeSpec claude,
    GeminiSpec gemini,
    CommandSpec command,
    String discordChannel,
    List<String> githubRepos,
    String cron,
    String timezone,
    List<TriggerSpec> triggers,
    Autonomy autonomy,
    ConfirmationSpec confirmation,
    ToolCallLogging toolCalls,
    LmOutput lmOutput,
    RecoveryPolicy recovery,
    long pollIntervalSeconds,
    long confirmationTimeoutSeconds,
    long sessionTimeoutSeconds,
    long heartbeatTimeoutSeconds,
    int continueAsNewEvery,
    WorkspaceSpec workspace,
    GitIdentity git,
    String colonyDir,
    String sourceFile,
    // JSON names of older histories: "supervision" and "supervisor" (ant inputs in committed histories).
    @JsonProperty("supervision") ErrorPolicy errorPolicy,
    @JsonProperty("supervisor") dev.colony.overseer.OverseerSpec overseer,
    NotifySpec notices) {

  public static final long DEFAULT_SESSION_TIMEOUT_SECONDS = 2 * 3600;
  public static final long DEFAULT_HEARTBEAT_TIMEOUT_SECONDS = 30;
  public static final long DEFAULT_CONFIRMATION_TIMEOUT_SECONDS = 30 * 60;
  /**
   * Sessions per run before an ant continues as new. 50 keeps a run near 500 history events (a
   * real session writes about ten), so rebuilding an evicted or restarted ant replays in well
   * under 100 ms whatever its age (bench/RESULTS.md, benchmark 4).
   */
  public static final int DEFAULT_CONTINUE_AS_NEW_EVERY = 50;

  public AntSpec {
    githubRepos = githubRepos == null ? List.of() : List.copyOf(githubRepos);
    triggers = triggers == null ? List.of() : List.copyOf(triggers);
    // Specs in older histories have no supervision block: the default error policy (retry for ever).
    errorPolicy = errorPolicy == null ? ErrorPolicy.DEFAULTS : errorPolicy;
  }

  /** A spec without notices for phones. */
  public AntSpec(String colony, String name, String description, String instructions, EngineKind engine,
      ClaudeSpec claude, GeminiSpec gemini, CommandSpec command, String discordChannel, List<String> githubRepos,
      String cron, String timezone, List<TriggerSpec> triggers, Autonomy autonomy, ConfirmationSpec confirmation,
      ToolCallLogging toolCalls, LmOutput lmOutput, RecoveryPolicy recovery, long pollIntervalSeconds,
      long confirmationTimeoutSeconds, long sessionTimeoutSeconds, long heartbeatTimeoutSeconds,
      int continueAsNewEvery, WorkspaceSpec workspace, GitIdentity git, String colonyDir, String sourceFile,
      ErrorPolicy errorPolicy, dev.colony.overseer.OverseerSpec overseer) {
    this(colony, name, description, instructions, engine, claude, gemini, command, discordChannel, githubRepos,
        cron, timezone, triggers, autonomy, confirmation, toolCalls, lmOutput, recovery, pollIntervalSeconds,
        confirmationTimeoutSeconds, sessionTimeoutSeconds, heartbeatTimeoutSeconds, continueAsNewEvery, workspace,
        git, colonyDir, sourceFile, errorPolicy, overseer, null);
  }

  /** A spec without an overseer. */
  public AntSpec(String colony, String name, String description, String instructions, EngineKind engine,
      ClaudeSpec claude, GeminiSpec gemini, CommandSpec command, String discordChannel, List<String> githubRepos,
      String cron, String timezone, List<TriggerSpec> triggers, Autonomy autonomy, ConfirmationSpec confirmation,
      ToolCallLogging toolCalls, LmOutput lmOutput, RecoveryPolicy recovery, long pollIntervalSeconds,
      long confirmationTimeoutSeconds, long sessionTimeoutSeconds, long heartbeatTimeoutSeconds,
      int continueAsNewEvery, WorkspaceSpec workspace, GitIdentity git, String colonyDir, String sourceFile,
      ErrorPolicy errorPolicy) {
    this(colony, name, description, instructions, engine, claude, gemini, command, discordChannel, githubRepos,
        cron, timezone, triggers, autonomy, confirmation, toolCalls, lmOutput, recovery, pollIntervalSeconds,
        confirmationTimeoutSeconds, sessionTimeoutSeconds, heartbeatTimeoutSeconds, continueAsNewEvery, workspace,
        git, colonyDir, sourceFile, errorPolicy, null);
  }

  /** A spec with the default error policy (retry for ever, the default backoff). */
  public AntSpec(String colony, String name, String description, String instructions, EngineKind engine,
      ClaudeSpec claude, GeminiSpec gemini, CommandSpec command, String discordChannel, List<String> githubRepos,
      String cron, String timezone, List<TriggerSpec> triggers, Autonomy autonomy, ConfirmationSpec confirmation,
      ToolCallLogging toolCalls, LmOutput lmOutput, RecoveryPolicy recovery, long pollIntervalSeconds,
      long confirmationTimeoutSeconds, long sessionTimeoutSeconds, long heartbeatTimeoutSeconds,
      int continueAsNewEvery, WorkspaceSpec workspace, GitIdentity git, String colonyDir, String sourceFile) {
    this(colony, name, description, instructions, engine, claude, gemini, command, discordChannel, githubRepos,
        cron, timezone, triggers, autonomy, confirmation, toolCalls, lmOutput, recovery, pollIntervalSeconds,
        confirmationTimeoutSeconds, sessionTimeoutSeconds, heartbeatTimeoutSeconds, continueAsNewEvery, workspace,
        git, colonyDir, sourceFile, ErrorPolicy.DEFAULTS);
  }

  /** Ants with a schedule or triggers run only when one fires (or a human writes). */
  public boolean eventDriven() {
    return (cron != null && !cron.isBlank()) || !triggers.isEmpty();
  }

  /** The workflow id of this ant: {@code ant/<colony>/<ant>}. */
  public String workflowId() {
    return AntIds.workflowId(colony, name);
  }

  public AntSpec withContinueAsNewEvery(int every) {
    return new AntSpec(colony, name, description, instructions, engine, claude, gemini, command,
        discordChannel, githubRepos, cron, timezone, triggers, autonomy, confirmation, toolCalls, lmOutput,
        recovery, pollIntervalSeconds, confirmationTimeoutSeconds, sessionTimeoutSeconds,
        heartbeatTimeoutSeconds, every, workspace, git, colonyDir, sourceFile, errorPolicy, overseer, notices);
  }

  /** The same ant with an overseer (null: none). */
  public AntSpec withOverseer(dev.colony.overseer.OverseerSpec s) {
    return new AntSpec(colony, name, description, instructions, engine, claude, gemini, command,
        discordChannel, githubRepos, cron, timezone, triggers, autonomy, confirmation, toolCalls, lmOutput,
        recovery, pollIntervalSeconds, confirmationTimeoutSeconds, sessionTimeoutSeconds,
        heartbeatTimeoutSeconds, continueAsNewEvery, workspace, git, colonyDir, sourceFile, errorPolicy, s, notices);
  }

  /** The same ant with notices for phones (null: none). */
  public AntSpec withNotify(NotifySpec n) {
    return new AntSpec(colony, name, description, instructions, engine, claude, gemini, command,
        discordChannel, githubRepos, cron, timezone, triggers, autonomy, confirmation, toolCalls, lmOutput,
        recovery, pollIntervalSeconds, confirmationTimeoutSeconds, sessionTimeoutSeconds,
        heartbeatTimeoutSeconds, continueAsNewEvery, workspace, git, colonyDir, sourceFile, errorPolicy, overseer, n);
  }
}
