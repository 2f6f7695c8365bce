package dev.colony.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.colony.board.TaskQueries;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The one quoting rule of visibility queries, with hostile values: a quote and a backslash are
 * escaped (the value is searched for as it is, and adds no clause), a newline is refused; and the
 * board's and the merge queues' queries follow it.
 */
@Timeout(30)
class VisibilityQueryTest {
  @Test
  void aQuoteAndABackslashAreEscapedSoAValueStaysOneValue() {
    assertEquals("'acme'", VisibilityQuery.literal("acme"));
    assertEquals("'it\\'s'", VisibilityQuery.literal("it's"));
    assertEquals("'back\\\\slash'", VisibilityQuery.literal("back\\slash"));
    // a value that tries to end the string and add a clause stays inside it
    assertEquals("ColonyName = 'x\\' OR ColonyName != \\'x'",
        VisibilityQuery.where().eq("ColonyName", "x' OR ColonyName != 'x").toString());
    // a backslash before the closing quote cannot escape it
    assertEquals("ColonyName = 'x\\\\' AND ExecutionStatus = 'Running'",
        VisibilityQuery.where().eq("ColonyName", "x\\").running().toString());
  }

  @Test
  void aControlCharacterIsRefusedNamingTheValue() {
    var bad = assertThrows(IllegalArgumentException.class, () -> VisibilityQuery.literal("two\nlines"));
    assertEquals("'two?lines' cannot be searched for: it holds a control character (a newline, a tab, ...)",
        bad.getMessage());
    assertThrows(IllegalArgumentException.class, () -> VisibilityQuery.where().eq("ColonyName", "a\tb"));
    assertThrows(IllegalArgumentException.class, () -> VisibilityQuery.literal(null));
  }

  @Test
  void attributeNamesArePlainNames() {
    assertThrows(IllegalArgumentException.class, () -> VisibilityQuery.where().eq("ColonyName = 'x' OR X", "y"));
    assertEquals("", VisibilityQuery.where().toString());
    assertEquals("TaskQueue = 'q' AND WorkflowType IN ('A', 'B') AND TemporalWorkerDeploymentVersion IS NULL",
        VisibilityQuery.where().eq("TaskQueue", "q").in("WorkflowType", List.of("A", "B"))
            .isNull("TemporalWorkerDeploymentVersion").toString());
    assertEquals("AntName STARTS_WITH 'sc\\'' AND AntState = 'paused'",
        VisibilityQuery.where().startsWith("AntName", "sc'").and(VisibilityQuery.where().eq("AntState", "paused")).toString());
  }

  @Test
  void anOrIsOneClauseInItsParenthesesAndTheValuesOfEveryKindAreWrittenOneWay() {
    VisibilityQuery changed = VisibilityQuery.where().eq("WorkflowType", "AntWorkflow").eq("ColonyName", "it's")
        .and(VisibilityQuery.anyOf(
            VisibilityQuery.where().since("AntUpdatedAt", java.time.Instant.parse("2026-11-25T21:00:00Z")),
            VisibilityQuery.where().isNull("AntUpdatedAt").running()));
    assertEquals("WorkflowType = 'AntWorkflow' AND ColonyName = 'it\\'s' AND (AntUpdatedAt >= '2026-11-25T21:00:00Z'"
        + " OR (AntUpdatedAt IS NULL AND ExecutionStatus = 'Running'))", changed.toString());
    assertEquals("(AntNeedsHuman = true OR AntErrors > 0) AND ColonyName = 'a'", VisibilityQuery.anyOf(
        VisibilityQuery.where().eq("AntNeedsHuman", true), VisibilityQuery.where().above("AntErrors", 0))
        .eq("ColonyName", "a").toString());
    assertThrows(IllegalArgumentException.class, () -> VisibilityQuery.anyOf(VisibilityQuery.where()));
    assertThrows(IllegalArgumentException.class, () -> VisibilityQuery.anyOf());
  }

  @Test
  void theMergeQueuesAndTheBoardSearchForTheColonyAsItIsNamed() {
    // (the merge queues' query dropped the quote: 'it''s' searched for colony "its")
    assertEquals("WorkflowType = 'MergeQueue' AND ColonyName = 'it\\'s' AND ExecutionStatus = 'Running'",
        MergeQueues.runningQuery("it's"));
    // (the board refused a quote or a backslash outright)
    assertEquals("WorkflowType = 'TaskWorkflow' AND ColonyName = 'it\\'s'", TaskQueries.tasksOf("it's").toString());
    assertEquals("('a\\\\b', 'c')", VisibilityQuery.inList(List.of("a\\b", "c")));
    assertThrows(IllegalArgumentException.class, () -> MergeQueues.runningQuery("a\nb"));
  }
}
