package dev.colony.cli;

import dev.colony.config.Environment;
import dev.colony.config.LoadedColony;
import dev.colony.secrets.Secrets;
import dev.colony.engine.claude.ClaudeEngine;
import dev.colony.spec.AntSpec;
import dev.colony.spec.EngineKind;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Checks what the ants of a colony need on this machine (the claude CLI, API keys) and warns.
 * Warnings only: the workers that run the sessions may live elsewhere.
 */
final class Preflight {
  private Preflight() {}

  static List<String> warnings(LoadedColony colony) {
    Map<String, String> env = Environment.forColony(Path.of(colony.colony().dir()));
    List<String> out = new ArrayList<>();
    for (AntSpec a : colony.ants()) {
      if (a.engine() == EngineKind.CLAUDE) {
        String bin = env.getOrDefault("COLONY_CLAUDE_BIN", "claude");
        if (dev.colony.engine.Processes.findExecutable(bin, env.get("PATH")) == null) {
          out.add("ant '" + a.name() + "' uses engine claude, but '" + bin + "' is not installed here: "
              + ClaudeEngine.INSTALL_HINT + ".");
        } else if (!env.containsKey("ANTHROPIC_API_KEY") && !env.containsKey("CLAUDE_CODE_OAUTH_TOKEN")) {
          out.add("ant '" + a.name() + "' uses engine claude, but neither ANTHROPIC_API_KEY nor "
              + "CLAUDE_CODE_OAUTH_TOKEN is set (environment or .env).");
        }
      } else if (a.engine() == EngineKind.GEMINI && !env.containsKey("GEMINI_API_KEY") && !env.containsKey("GOOGLE_API_KEY")) {
        out.add("ant '" + a.name() + "' uses engine gemini, but GEMINI_API_KEY is not set (environment or .env).");
      }
      dev.colony.spec.SandboxSpec walls = dev.colony.spec.SandboxSpec.of(a);
      if (walls.off()) {
        out.add("ant '" + a.name() + "' has sandbox: off: its sessions run with the worker's powers (every "
            + "secret, Temporal, every file and port the worker reaches). Keep it for agents you trust; see docs/security.md.");
      } else if (walls.networkOpen()) {
        out.add("ant '" + a.name() + "' has sandbox.network: open: its sessions reach any host, the worker's "
            + "loopback services included. Prefer network.allow: [hosts]; see docs/security.md.");
      }
      for (String name : walls.secrets()) {
        if (!env.containsKey(name)) {
          out.add("ant '" + a.name() + "' is granted the secret " + name + ", but it is not set here (environment or .env).");
        }
      }
      if (a.overseer() != null) {
        var sup = a.overseer();
        if (dev.colony.overseer.OverseerSpec.GEMINI.equals(sup.provider())
            ? !env.containsKey("GEMINI_API_KEY") && !env.containsKey("GOOGLE_API_KEY")
            : !env.containsKey("ANTHROPIC_API_KEY")) {
          out.add("ant '" + a.name() + "' has an overseer on " + sup.model() + ", but "
              + (dev.colony.overseer.OverseerSpec.GEMINI.equals(sup.provider()) ? "GEMINI_API_KEY" : "ANTHROPIC_API_KEY")
              + " is not set (environment or .env): every evaluation will be skipped.");
        }
        if (a.engine() == EngineKind.COMMAND) {
          out.add("ant '" + a.name() + "' has an overseer; engine command reports a turn only for each line "
              + "'COLONY_TURN <json or text>' the agent prints, and its whispers arrive in $COLONY_WHISPER_FILE.");
        }
      }
      if (a.errorPolicy().hasBudget()) {
        if (a.engine() == EngineKind.GEMINI && (a.gemini() == null || a.gemini().inputUsdPerMillion() == null)) {
          var model = a.gemini() == null ? dev.colony.spec.GeminiSpec.DEFAULT_MODEL : a.gemini().model();
          var price = dev.colony.engine.ModelPrices.of(model);
          out.add("ant '" + a.name() + "' has a budget; engine gemini reports tokens, not cost: its spend is estimated "
              + String.format(java.util.Locale.ROOT, "at %s's list price ($%.2f in, $%.2f out per million tokens)",
                  model, price.inputPerMillion(), price.outputPerMillion())
              + "; set gemini.price for yours.");
        } else if (a.engine() == EngineKind.COMMAND) {
          out.add("ant '" + a.name() + "' has a budget; engine command knows a session's cost only when the "
              + "agent prints a line 'COLONY_COST_USD=<amount>' (otherwise the cap is never reached).");
        }
      }
    }
    if (colony.colony().discord() != null && colony.colony().discord().operators().isEmpty()) {
      out.add("integrations.discord.operators is not set: anyone in the guild can command the ants "
          + "(approvals and resuming a billing/auth/budget pause still need Administrator).");
    }
    if (colony.slack() != null && colony.slack().operators().isEmpty()) {
      out.add("integrations.slack.operators is not set: anyone in the ants' channels can command them "
          + "(approvals and resuming a billing/auth/budget pause still need a workspace admin).");
    }
    if (colony.ants().stream().anyMatch(a -> !dev.colony.spec.SandboxSpec.of(a).off())) {
      dev.colony.sandbox.Bubblewrap.Probe probe = dev.colony.sandbox.Bubblewrap.probe();
      if (!probe.works()) {
        out.add("sessions run in a sandbox, and this machine cannot make one: " + probe.problem()
            + ". A worker here would pause each ant at its first session.");
      }
      boolean limited = colony.ants().stream().map(dev.colony.spec.SandboxSpec::of)
          .anyMatch(w -> !w.off() && (w.memoryBytes() > 0 || w.processes() > 0));
      String limits = limited && probe.works() ? dev.colony.sandbox.SessionLimits.check() : null;
      if (limits != null) {
        out.add("a worker here runs sessions without memory and process limits: " + limits + ".");
      }
    }
    for (String v : Secrets.tooShortToMask(colony.variables(), env)) {
      out.add("${" + v + "} is shorter than " + Secrets.MIN_LENGTH + " characters: it stays out of Temporal, "
          + "but it is too short to be masked in what agents print.");
    }
    return out;
  }

  static void print(LoadedColony colony, PrintWriter err) {
    for (String w : warnings(colony)) {
      err.println("colony: warning: " + w);
    }
    err.flush();
  }

}
