package dev.colony.cli;

import dev.colony.config.Durations;
import dev.colony.config.LoadedColony;
import dev.colony.spec.AntSpec;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "validate", mixinStandardHelpOptions = true,
    description = "Check a colony directory (colony.yaml + ants/*.yaml). Exit 0 when valid, 1 when not.")
final class ValidateCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "DIR", description = "The colony directory.")
  Path dir;

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    LoadedColony colony = ColonyDir.load(dev.colony.secrets.Invocation.resolve(dir));
    var out = spec.commandLine().getOut();
    out.printf("colony '%s' is valid: %d ant%s, chat on %s%n", colony.colony().name(),
        colony.ants().size(), colony.ants().size() == 1 ? "" : "s",
        chats(colony));
    for (AntSpec a : colony.ants()) {
      dev.colony.spec.SandboxSpec walls = dev.colony.spec.SandboxSpec.of(a);
      out.printf("  %-20s engine %-8s %s%s%n", a.name(), a.engine().configName(), rhythm(a),
          walls.off() ? "  [NO SANDBOX]" : walls.networkOpen() ? "  [network open]" : "");
    }
    for (dev.colony.merge.MergeRepo r : colony.merge()) {
      long ants = colony.ants().stream().filter(a -> r.equals(a.merge())).count();
      out.printf("  %s (%d ant%s)%n", MergeView.started(r), ants, ants == 1 ? "" : "s");
    }
    // Its own task queue: a worker of another colony never runs its ants.
    out.printf("runs on task queue '%s' (its own; start its workers with ./colony worker %s)%n",
        dev.colony.spec.AntIds.taskQueue(colony.colony().name()), dir);
    out.flush();
    if (colony.ants().isEmpty()) {
      spec.commandLine().getErr().println("colony: warning: no ants yet: add one <name>.yaml file per ant to "
          + dir.resolve("ants") + " before running the colony.");
    }
    Preflight.print(colony, spec.commandLine().getErr());
    return 0;
  }

  /** Where the colony's ants chat: Discord, Slack, both, or the console. */
  static String chats(LoadedColony colony) {
    java.util.List<String> on = new java.util.ArrayList<>();
    if (colony.colony().discord() != null) {
      on.add("Discord (" + colony.colony().discord().guild() + ")");
    }
    if (colony.slack() != null) {
      on.add("Slack (" + colony.slack().channels().size() + " ant channel" + (colony.slack().channels().size() == 1 ? "" : "s")
          + (colony.slack().alertsChannel() == null ? "" : ", alerts in " + colony.slack().alertsChannel()) + ")");
    }
    String chat = on.isEmpty() ? "the console" : String.join(" and ", on);
    dev.colony.spec.NotifySpec n = colony.ants().isEmpty() ? null : colony.ants().get(0).notices();
    if (n != null) {
      java.util.List<String> to = new java.util.ArrayList<>();
      if (!n.ntfy().isEmpty()) {
        to.add(n.ntfy().size() + " ntfy topic" + (n.ntfy().size() == 1 ? "" : "s"));
      }
      if (n.webhookUrl() != null) {
        to.add("the webhook");
      }
      chat += "; notices to " + String.join(" and ", to) + (n.reminders() > 0 && n.remindAfterSeconds() > 0
          ? ", reminded after " + Durations.format(n.remindAfterSeconds()) : "");
    }
    return chat;
  }

  static String rhythm(AntSpec a) {
    if (a.cron() != null) {
      return "on schedule '" + a.cron() + "' (" + a.timezone() + ")"
          + (a.triggers().isEmpty() ? "" : " and on triggers");
    }
    if (!a.triggers().isEmpty()) {
      return "on triggers and messages";
    }
    return a.pollIntervalSeconds() > 0
        ? "continuous, sleeping " + Durations.format(a.pollIntervalSeconds()) + " between sessions"
        : "continuous";
  }
}
