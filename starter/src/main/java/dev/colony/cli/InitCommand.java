package dev.colony.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** Creates a colony that validates as it is, and says what to run next. */
@Command(name = "init", mixinStandardHelpOptions = true,
    description = "Create a colony directory: colony.yaml, one ant, .env.example, .gitignore and the config's JSON Schema.")
final class InitCommand implements Callable<Integer> {
  enum Engine { claude, gemini, command }

  @Parameters(index = "0", paramLabel = "DIR", description = "The colony directory to create (may exist, but not its files).")
  Path dir;

  @Option(names = "--engine", defaultValue = "claude", description = "The ant's engine: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  Engine engine;

  @Option(names = "--discord", description = "Chat on Discord (needs DISCORD_TOKEN) instead of the console.")
  boolean discord;

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    String name = dir.toAbsolutePath().normalize().getFileName() == null ? "colony"
        : dir.toAbsolutePath().normalize().getFileName().toString().replaceAll("[^A-Za-z0-9_.-]", "-");
    if (!name.matches("[A-Za-z0-9].*")) {
      name = "colony-" + name;
    }
    name = name.length() > 63 ? name.substring(0, 63) : name;
    Map<String, String> files = new LinkedHashMap<>();
    StringBuilder colony = new StringBuilder(dev.colony.config.ConfigSchema.COLONY_MODELINE + "\n")
        .append("# The colony: settings shared by every ant (see docs/configuration.md).\n")
        .append("name: ").append(name).append('\n');
    if (discord) {
      colony.append("integrations:\n  discord:\n    token: ${DISCORD_TOKEN}\n    guild: My Server            # the server's name or id\n")
          .append("    # operators: [\"Colony Ops\"]  # who may command the ants (user ids, role ids or role names)\n");
    }
    colony.append("defaults:\n  poll_interval: 5m          # a continuous ant sleeps this long between sessions\n");
    files.put("colony.yaml", colony.toString());
    StringBuilder ant = new StringBuilder(dev.colony.config.ConfigSchema.ANT_MODELINE + "\n")
        .append("# One ant: one file. Add more files to add ants.\n")
        .append("name: worker\n")
        .append("description: keeps the project moving\n")
        .append("instructions: |\n  Read PLAN.md, pick the next task, do it, and update PLAN.md.\n")
        .append("engine: ").append(engine).append('\n');
    List<String> env = new ArrayList<>();
    switch (engine) {
      case claude -> env.add("ANTHROPIC_API_KEY=          # or CLAUDE_CODE_OAUTH_TOKEN; needs the claude CLI (npm i -g @anthropic-ai/claude-code)");
      case gemini -> env.add("GEMINI_API_KEY=");
      case command -> ant.append("command:\n  argv: [\"./agent.sh\"]     # any CLI agent; it gets the prompt on stdin\n");
    }
    if (discord) {
      ant.append("integrations:\n  discord:\n    channel: worker\n");
      env.add(0, "DISCORD_TOKEN=");
    }
    files.put("ants/worker.yaml", ant.toString());
    if (engine == Engine.command) {
      files.put("agent.sh", "#!/bin/sh\n# A stand-in agent: replace with your own. The prompt arrives on stdin.\n"
          + "head -c 200 > /dev/null\necho \"session $COLONY_SESSION of $COLONY_ANT: nothing to do yet\"\n");
    }
    files.put(".env.example", "# Copy to .env and fill in; .env stays out of git.\n" + String.join("\n", env)
        + (env.isEmpty() ? "" : "\n"));
    files.put(".gitignore", ".env\n.colony/\n");
    List<String> existing = new ArrayList<>();
    for (String f : files.keySet()) {
      if (Files.exists(dir.resolve(f))) {
        existing.add(f);
      }
    }
    if (!existing.isEmpty()) {
      throw new UserError("not overwriting " + String.join(", ", existing) + " in " + dir
          + ": choose a new directory, or move them away");
    }
    Files.createDirectories(dir.resolve("ants"));
    for (Map.Entry<String, String> f : files.entrySet()) {
      Files.writeString(dir.resolve(f.getKey()), f.getValue());
    }
    if (engine == Engine.command) {
      dir.resolve("agent.sh").toFile().setExecutable(true);
    }
    // What editors validate and complete the two files with (the first line of each names it).
    dev.colony.config.ConfigSchema.write(dir);
    var out = spec.commandLine().getOut();
    out.printf("created colony '%s' in %s%n", name, dir);
    if (!env.isEmpty()) {
      out.printf("fill in %s (see %s), then:%n", dir.resolve(".env"), dir.resolve(".env.example"));
    } else {
      out.println("then:");
    }
    out.printf("  ./colony validate %s%n  ./colony dev %s%n", dir, dir);
    out.flush();
    return 0;
  }
}
