package dev.colony.supervision;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/**
 * A colony's supervisor, one per colony with id {@code colony/<colony>}: applies each
 * group's restart strategy when an ant fails, trips the group's circuit breaker, and keeps the
 * colony's event log.
 */
@WorkflowInterface
public interface ColonyWorkflow {
  static String workflowId(String colony) {
    return "colony/" + colony;
  }

  @WorkflowMethod(name = "ColonyWorkflow")
  void run(ColonyRun run);

  /** An ant failed. */
  @SignalMethod(name = "antFailed")
  void antFailed(AntFailure failure);

  /** New groups (sent by {@code colony start}). */
  @SignalMethod(name = "configure")
  void configure(List<GroupSpec> groups);

  /** An operator clears a failed group (null: every group) and restarts its ants. */
  @SignalMethod(name = "reset")
  void reset(String group);

  /** Events after {@code afterSeq}, oldest first. */
  /** Move to the worker deployment's current version (sent by {@code colony upgrade}); see AntWorkflow#upgrade. */
  @SignalMethod(name = "upgrade")
  void upgrade();

  @QueryMethod(name = "events")
  List<ColonyEvent> events(long afterSeq);

  /** The groups that are failed (the breaker tripped), by name. */
  @QueryMethod(name = "failedGroups")
  List<String> failedGroups();
}
