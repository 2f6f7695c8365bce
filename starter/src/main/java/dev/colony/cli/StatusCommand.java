package dev.colony.cli;

import dev.colony.ant.AntStats;
import dev.colony.ant.AntStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "status", mixinStandardHelpOptions = true,
    description = "Show what every running ant (or one) is doing.")
final class StatusCommand implements Callable<Integer> {
  @Parameters(index = "0", arity = "0..1", paramLabel = "ANT", description = "An ant name, or colony/ant.")
  String ant;

  @Option(names = "--json", description = "Print one JSON document instead of a table.")
  boolean json;

  @Option(names = "--colony", paramLabel = "NAME", description = "Only ants of this colony.")
  String colony;

  @Mixin
  TemporalOptions temporal;

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    try (Temporal t = Temporal.connect(temporal)) {
      List<Ants.Ref> refs = new ArrayList<>();
      if (ant != null) {
        refs.add(Ants.resolve(t, ant, colony));
      } else {
        for (Ants.Ref r : Ants.list(t)) {
          if (colony == null || colony.equals(r.colony())) {
            refs.add(r);
          }
        }
      }
      List<AntStatus> statuses = new ArrayList<>();
      Map<String, AntStats> stats = new HashMap<>();
      for (Ants.Ref r : refs) {
        statuses.add(Ants.status(t, r));
        if (json || ant != null) {
          stats.put(r.colony() + "/" + r.ant(), Ants.stats(t, r));
        }
      }
      var out = spec.commandLine().getOut();
      Instant now = Instant.now();
      if (json) {
        out.print(StatusView.json(t.address, t.namespace, statuses, stats));
      } else if (ant != null) {
        AntStatus s = statuses.get(0);
        out.print(StatusView.detail(s, stats.get(s.colony() + "/" + s.ant()), now));
      } else {
        out.print(StatusView.table(statuses, now));
      }
      out.flush();
    }
    return 0;
  }
}
