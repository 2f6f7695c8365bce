package dev.colony.ant;

import dev.colony.supervision.AntFailure;
import dev.colony.supervision.ColonyWorkflow;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;

/**
 * What the ant tells its colony's supervisor: a failure, or an event for the colony's
 * log. Sent without waiting; a run ends only once every report is answered.
 */
final class ColonyReports {
  private static final Logger log = Workflow.getLogger(ColonyReports.class);
  private final AntState ant;
  private final List<Promise<Void>> inFlight = new ArrayList<>();

  ColonyReports(AntState ant) {
    this.ant = ant;
  }

  void report(String kind, String reason) {
    var colony = Workflow.newExternalWorkflowStub(ColonyWorkflow.class, ColonyWorkflow.workflowId(ant.spec().colony()));
    String name = ant.spec().name();
    ant.metrics.reported(kind);
    Promise<Void> told = Async.procedure(colony::antFailed, new AntFailure(name, reason, kind))
        .exceptionally(e -> {
          log.info("{}: no colony supervisor to tell ({})", name, e.getMessage());
          return null;
        });
    inFlight.removeIf(Promise::isCompleted);
    inFlight.add(told);
  }

  boolean allAnswered() {
    return inFlight.stream().allMatch(Promise::isCompleted);
  }
}
