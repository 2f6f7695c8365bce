package dev.colony.spec;

import dev.colony.errorpolicy.ErrorPolicy;
import com.fasterxml.jackson.annotation.JsonAlias;
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
    // Old JSON names, still written (older code reads them): "supervision" and "supervisor"; the new
    // names are read too (see the compatibility ledger, dev.colony.compat.Compatibility).
    @JsonProperty("supervision") @JsonAlias("errorPolicy") ErrorPolicy errorPolicy,
    @JsonProperty("supervisor") @JsonAlias("overseer") dev.colony.overseer.OverseerSpec overseer,
    NotifySpec notices,
    TaskPolicy tasks,
    dev.colony.merge.MergeRepo merge,
    SandboxSpec sandbox) {

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

  /** Ants with a schedule or triggers run only when one fires (or a human writes). */
  public boolean eventDriven() {
    return (cron != null && !cron.isBlank()) || !triggers.isEmpty();
  }

  /** The workflow id of this ant: {@code ant/<colony>/<ant>}. */
  public String workflowId() {
    return AntIds.workflowId(colony, name);
  }

  public AntSpec withContinueAsNewEvery(int every) {
    return toBuilder().continueAsNewEvery(every).build();
  }

  /** The same ant with an overseer (null: none). */
  public AntSpec withOverseer(dev.colony.overseer.OverseerSpec s) {
    return toBuilder().overseer(s).build();
  }

  /** The same ant with notices for phones (null: none). */
  public AntSpec withNotify(NotifySpec n) {
    return toBuilder().notices(n).build();
  }

  /** A builder: every field by name; those not set are empty (null, zero, false). */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from this one. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.colony = colony;
    b.name = name;
    b.description = description;
    b.instructions = instructions;
    b.engine = engine;
    b.claude = claude;
    b.gemini = gemini;
    b.command = command;
    b.discordChannel = discordChannel;
    b.githubRepos = githubRepos;
    b.cron = cron;
    b.timezone = timezone;
    b.triggers = triggers;
    b.autonomy = autonomy;
    b.confirmation = confirmation;
    b.toolCalls = toolCalls;
    b.lmOutput = lmOutput;
    b.recovery = recovery;
    b.pollIntervalSeconds = pollIntervalSeconds;
    b.confirmationTimeoutSeconds = confirmationTimeoutSeconds;
    b.sessionTimeoutSeconds = sessionTimeoutSeconds;
    b.heartbeatTimeoutSeconds = heartbeatTimeoutSeconds;
    b.continueAsNewEvery = continueAsNewEvery;
    b.workspace = workspace;
    b.git = git;
    b.colonyDir = colonyDir;
    b.sourceFile = sourceFile;
    b.errorPolicy = errorPolicy;
    b.overseer = overseer;
    b.notices = notices;
    b.tasks = tasks;
    b.merge = merge;
    b.sandbox = sandbox;
    return b;
  }

  /** Builds an {@link AntSpec} by field name; the record and its JSON shape stay as they are. */
  public static final class Builder {
    private String colony;
    private String name;
    private String description;
    private String instructions;
    private EngineKind engine;
    private ClaudeSpec claude;
    private GeminiSpec gemini;
    private CommandSpec command;
    private String discordChannel;
    private List<String> githubRepos;
    private String cron;
    private String timezone;
    private List<TriggerSpec> triggers;
    private Autonomy autonomy;
    private ConfirmationSpec confirmation;
    private ToolCallLogging toolCalls;
    private LmOutput lmOutput;
    private RecoveryPolicy recovery;
    private long pollIntervalSeconds;
    private long confirmationTimeoutSeconds;
    private long sessionTimeoutSeconds;
    private long heartbeatTimeoutSeconds;
    private int continueAsNewEvery;
    private WorkspaceSpec workspace;
    private GitIdentity git;
    private String colonyDir;
    private String sourceFile;
    private ErrorPolicy errorPolicy;
    private dev.colony.overseer.OverseerSpec overseer;
    private NotifySpec notices;
    private TaskPolicy tasks;
    private dev.colony.merge.MergeRepo merge;
    private SandboxSpec sandbox;

    private Builder() {}

    public Builder colony(String colony) {
      this.colony = colony;
      return this;
    }

    public Builder name(String name) {
      this.name = name;
      return this;
    }

    public Builder description(String description) {
      this.description = description;
      return this;
    }

    public Builder instructions(String instructions) {
      this.instructions = instructions;
      return this;
    }

    public Builder engine(EngineKind engine) {
      this.engine = engine;
      return this;
    }

    public Builder claude(ClaudeSpec claude) {
      this.claude = claude;
      return this;
    }

    public Builder gemini(GeminiSpec gemini) {
      this.gemini = gemini;
      return this;
    }

    public Builder command(CommandSpec command) {
      this.command = command;
      return this;
    }

    public Builder discordChannel(String discordChannel) {
      this.discordChannel = discordChannel;
      return this;
    }

    public Builder githubRepos(List<String> githubRepos) {
      this.githubRepos = githubRepos;
      return this;
    }

    public Builder cron(String cron) {
      this.cron = cron;
      return this;
    }

    public Builder timezone(String timezone) {
      this.timezone = timezone;
      return this;
    }

    public Builder triggers(List<TriggerSpec> triggers) {
      this.triggers = triggers;
      return this;
    }

    public Builder autonomy(Autonomy autonomy) {
      this.autonomy = autonomy;
      return this;
    }

    public Builder confirmation(ConfirmationSpec confirmation) {
      this.confirmation = confirmation;
      return this;
    }

    public Builder toolCalls(ToolCallLogging toolCalls) {
      this.toolCalls = toolCalls;
      return this;
    }

    public Builder lmOutput(LmOutput lmOutput) {
      this.lmOutput = lmOutput;
      return this;
    }

    public Builder recovery(RecoveryPolicy recovery) {
      this.recovery = recovery;
      return this;
    }

    public Builder pollIntervalSeconds(long pollIntervalSeconds) {
      this.pollIntervalSeconds = pollIntervalSeconds;
      return this;
    }

    public Builder confirmationTimeoutSeconds(long confirmationTimeoutSeconds) {
      this.confirmationTimeoutSeconds = confirmationTimeoutSeconds;
      return this;
    }

    public Builder sessionTimeoutSeconds(long sessionTimeoutSeconds) {
      this.sessionTimeoutSeconds = sessionTimeoutSeconds;
      return this;
    }

    public Builder heartbeatTimeoutSeconds(long heartbeatTimeoutSeconds) {
      this.heartbeatTimeoutSeconds = heartbeatTimeoutSeconds;
      return this;
    }

    public Builder continueAsNewEvery(int continueAsNewEvery) {
      this.continueAsNewEvery = continueAsNewEvery;
      return this;
    }

    public Builder workspace(WorkspaceSpec workspace) {
      this.workspace = workspace;
      return this;
    }

    public Builder git(GitIdentity git) {
      this.git = git;
      return this;
    }

    public Builder colonyDir(String colonyDir) {
      this.colonyDir = colonyDir;
      return this;
    }

    public Builder sourceFile(String sourceFile) {
      this.sourceFile = sourceFile;
      return this;
    }

    public Builder errorPolicy(ErrorPolicy errorPolicy) {
      this.errorPolicy = errorPolicy;
      return this;
    }

    public Builder overseer(dev.colony.overseer.OverseerSpec overseer) {
      this.overseer = overseer;
      return this;
    }

    /** How the ant takes tasks ({@code tasks:}); null: only tasks assigned to it by name, and it works when idle. */
    /** The merge queue of the ant's repository ({@code merge.repos} in colony.yaml); null: none. */
    public Builder merge(dev.colony.merge.MergeRepo merge) {
      this.merge = merge;
      return this;
    }

    public Builder tasks(TaskPolicy tasks) {
      this.tasks = tasks;
      return this;
    }

    public Builder notices(NotifySpec notices) {
      this.notices = notices;
      return this;
    }

    /** The walls around its sessions ({@code sandbox:}); null: the defaults. */
    public Builder sandbox(SandboxSpec sandbox) {
      this.sandbox = sandbox;
      return this;
    }

    public AntSpec build() {
      return new AntSpec(colony, name, description, instructions, engine, claude, gemini, command, discordChannel, githubRepos, cron, timezone, triggers, autonomy, confirmation, toolCalls, lmOutput, recovery, pollIntervalSeconds, confirmationTimeoutSeconds, sessionTimeoutSeconds, heartbeatTimeoutSeconds, continueAsNewEvery, workspace, git, colonyDir, sourceFile, errorPolicy, overseer, notices, tasks, merge, sandbox);
    }
  }
}
