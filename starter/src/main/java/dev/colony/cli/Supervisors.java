package dev.colony.cli;

import dev.colony.config.LoadedColony;
import dev.colony.spec.AntSpec;
import dev.colony.supervision.ColonyRun;
import dev.colony.supervision.ColonyWorkflow;
import dev.colony.supervision.GroupSpec;
import io.temporal.client.BatchRequest;
import io.temporal.client.WorkflowOptions;
import java.io.PrintWriter;
import java.util.List;

/** Starts (or reconfigures) a colony's supervisor, ColonyWorkflow {@code colony/<colony>}. */
final class Supervisors {
  private Supervisors() {}

  static void start(Temporal t, String taskQueue, LoadedColony colony, PrintWriter out) {
    String name = colony.colony().name();
    ColonyWorkflow w = t.client.newWorkflowStub(ColonyWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(ColonyWorkflow.workflowId(name)).setTaskQueue(taskQueue).build());
    List<GroupSpec> groups = colony.groups();
    BatchRequest req = t.client.newSignalWithStartRequest();
    var c = colony.colony();
    ColonyRun.Webhook hook = c.webhookUrl() == null ? null
        : new ColonyRun.Webhook(c.dir(), c.webhookUrl(), c.webhookSecretVar());
    req.add(w::run, ColonyRun.fresh(name, groups, alertsChannel(colony), hook));
    req.add(w::configure, groups);
    t.client.signalWithStart(req);
    int alone = (int) colony.ants().stream().filter(a -> groups.stream().noneMatch(g -> g.ants().contains(a.name())))
        .count();
    out.println(dev.colony.text.Printable.of(String.format("supervisor %s: %s%s", ColonyWorkflow.workflowId(name),
        groups.isEmpty() ? "" : String.join(", ", groups.stream().map(g -> g.name() + " (" + g.strategy().configName()
            + ", " + g.ants().size() + " ants, " + g.maxRestarts() + " restarts in " + g.windowSeconds() + "s)").toList()),
        alone == 0 ? "" : (groups.isEmpty() ? "" : "; ") + alone + " ant" + (alone == 1 ? "" : "s") + " supervised alone")));
    out.flush();
  }

  /** Where supervisor events go: the alerts channel, else the first ant's channel (Discord), else the console. */
  static String alertsChannel(LoadedColony colony) {
    if (colony.colony().discord() == null) {
      return null;
    }
    if (colony.colony().discord().alertsChannel() != null) {
      return colony.colony().discord().alertsChannel();
    }
    return colony.ants().stream().map(AntSpec::discordChannel).filter(c -> c != null).findFirst().orElse(null);
  }
}
