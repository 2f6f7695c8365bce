package dev.colony.testing;

import dev.colony.spec.AntSpec;
import dev.colony.spec.Autonomy;
import dev.colony.spec.ClaudeSpec;
import dev.colony.spec.ConfirmationSpec;
import dev.colony.spec.EngineKind;
import dev.colony.spec.GeminiSpec;
import dev.colony.spec.LmOutput;
import dev.colony.spec.RecoveryPolicy;
import dev.colony.spec.ToolCallLogging;
import dev.colony.spec.WorkspaceSpec;
import java.util.List;

/**
 * Ant specs for tests: {@link #ant} is a command ant in colony {@code test} with the defaults the
 * workflow tests share; change what a test needs by name ({@code .pollIntervalSeconds(5)}), or
 * start from a spec with {@link AntSpec#toBuilder()}. Nothing is dropped: there is no short
 * constructor that forgets the settings it does not list.
 */
public final class Specs {
  private Specs() {}

  /** A command ant named {@code name}, ready to {@code build()} or to change further. */
  public static AntSpec.Builder ant(String name) {
    return AntSpec.builder()
        .colony("test")
        .name(name)
        .description("an ant under test")
        .instructions("do the work")
        .engine(EngineKind.COMMAND)
        .claude(ClaudeSpec.DEFAULTS)
        .gemini(GeminiSpec.DEFAULTS)
        .discordChannel(name)
        .githubRepos(List.of())
        .triggers(List.of())
        .autonomy(Autonomy.HUMAN)
        .confirmation(ConfirmationSpec.NONE)
        .toolCalls(ToolCallLogging.IMPACTFUL)
        .lmOutput(LmOutput.DISCORD)
        .recovery(RecoveryPolicy.RESUME)
        .pollIntervalSeconds(0)
        .confirmationTimeoutSeconds(1800)
        .sessionTimeoutSeconds(3600)
        .heartbeatTimeoutSeconds(30)
        .continueAsNewEvery(100)
        .workspace(new WorkspaceSpec("/tmp", null, null))
        .colonyDir("/tmp")
        .sourceFile("ants/" + name + ".yaml");
  }
}
