package dev.colony.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code colony upgrade}'s visibility queries quote the task queue, the target version and the
 * older versions it counts: a quote in one of them stays a value and adds no clause (they were
 * concatenated raw: {@code TaskQueue = 'q' OR 'x'='x'} matched every workflow).
 */
@Timeout(30)
class UpgradeQueriesTest {
  private static final String TYPES = "WorkflowType IN ('AntWorkflow', 'ColonyWorkflow', 'Lease', 'MergeQueue', "
      + "'RepoWatcher', 'TaskWorkflow')";

  @Test
  void theWorkflowsToTellAreSearchedForWithQuotedValues() {
    assertEquals(List.of(
        "TaskQueue = 'colony' AND ExecutionStatus = 'Running' AND " + TYPES
            + " AND TemporalWorkerDeploymentVersion != 'colony:2'",
        "TaskQueue = 'colony' AND ExecutionStatus = 'Running' AND " + TYPES + " AND TemporalWorkerDeploymentVersion IS NULL"),
        UpgradeCommand.notOnTarget("colony", "colony:2"));
    assertEquals("TaskQueue = 'q\\' OR \\'x\\'=\\'x' AND ExecutionStatus = 'Running' AND " + TYPES
            + " AND TemporalWorkerDeploymentVersion != 'colony:it\\'s'",
        UpgradeCommand.notOnTarget("q' OR 'x'='x", "colony:it's").get(0));
  }

  @Test
  void theOlderVersionsAreCountedWithQuotedValues() {
    assertEquals("TemporalWorkerDeploymentVersion = 'colony:1' AND ExecutionStatus = 'Running'",
        UpgradeCommand.runningOn("colony:1"));
    assertEquals("TemporalWorkerDeploymentVersion = 'd\\\\:b\\'1' AND ExecutionStatus = 'Running'",
        UpgradeCommand.runningOn("d\\:b'1"));
    assertThrows(IllegalArgumentException.class, () -> UpgradeCommand.runningOn("d:\nb"));
  }
}
