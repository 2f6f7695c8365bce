package dev.colony.config;

import dev.colony.secrets.Secrets;
import dev.colony.spec.AntSpec;
import dev.colony.spec.ClaudeSpec;
import dev.colony.spec.CommandSpec;
import dev.colony.spec.ConfirmationSpec;
import dev.colony.spec.GeminiSpec;
import dev.colony.spec.GitIdentity;
import dev.colony.spec.OutcomeRule;
import dev.colony.spec.WorkspaceSpec;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Resolves the {@code ${VAR}} references an ant's spec carries, on the worker, at the moment an
 * activity uses them. The resolved spec lives only in the activity's memory: it is never returned
 * to the workflow. Every value resolved is registered with {@link Secrets}, so it is masked in
 * everything that leaves the worker afterwards.
 */
public final class SpecReferences {
  private SpecReferences() {}

  public static AntSpec resolve(AntSpec s, Map<String, String> env, Secrets secrets) {
    ClaudeSpec claude = s.claude() == null ? null
        : new ClaudeSpec(secrets.resolve(s.claude().model(), env), s.claude().maxTurns(), s.claude().maxBudgetUsd(),
            s.claude().telemetry());
    GeminiSpec gemini = s.gemini() == null ? null
        : new GeminiSpec(secrets.resolve(s.gemini().model(), env), s.gemini().maxTurns(),
            s.gemini().inputUsdPerMillion(), s.gemini().outputUsdPerMillion());
    CommandSpec command = null;
    if (s.command() != null) {
      Map<String, String> vars = new LinkedHashMap<>();
      s.command().env().forEach((k, v) -> vars.put(k, secrets.resolve(v, env)));
      List<OutcomeRule> rules = s.command().outcomes().stream()
          .map(r -> new OutcomeRule(r.exitCode(), secrets.resolve(r.pattern(), env), r.outcome())).toList();
      command = new CommandSpec(all(s.command().argv(), env, secrets), vars, rules);
    }
    ConfirmationSpec confirmation = s.confirmation() == null ? null : new ConfirmationSpec(
        all(s.confirmation().alwaysConfirmTools(), env, secrets),
        all(s.confirmation().dangerousPatterns(), env, secrets));
    WorkspaceSpec workspace = s.workspace();
    if (workspace != null && workspace.repo() != null) {
      String repo = secrets.resolve(workspace.repo(), env);
      if (!repo.equals(workspace.repo()) && !ColonyLoader.looksLikeUrl(repo)) {
        repo = Path.of(s.colonyDir()).resolve(repo).normalize().toString();
      }
      workspace = new WorkspaceSpec(workspace.root(), repo, secrets.resolve(workspace.branch(), env),
          workspace.moveAfterSeconds(), workspace.touches());
    }
    GitIdentity git = s.git() == null ? null
        : new GitIdentity(secrets.resolve(s.git().userName(), env), secrets.resolve(s.git().userEmail(), env));
    // Everything else (schedule, supervision, supervisor, notices, ...) is kept as it is.
    return s.toBuilder()
        .description(secrets.resolve(s.description(), env))
        .instructions(secrets.resolve(s.instructions(), env))
        .claude(claude)
        .gemini(gemini)
        .command(command)
        .confirmation(confirmation)
        .workspace(workspace)
        .git(git)
        .build();
  }

  private static List<String> all(List<String> values, Map<String, String> env, Secrets secrets) {
    return values.stream().map(v -> secrets.resolve(v, env)).toList();
  }
}
