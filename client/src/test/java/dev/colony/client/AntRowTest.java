package dev.colony.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.visibility.AntSearchAttributes;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.SearchAttributes;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link AntRow#of}, the one reading of an ant's visibility row, from what Temporal really returns
 * (a describe of a run started with the ant's search attributes and memo): every field, an ant that
 * has published nothing yet, and a run that is over.
 */
@Timeout(60)
class AntRowTest {
  TestWorkflowEnvironment env;
  WorkflowClient client;

  @BeforeEach
  void start() {
    env = TestWorkflowEnvironment.newInstance();
    AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
    client = env.getWorkflowClient();
    env.start();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  private AntRow row(String id) {
    return AntRow.of(client.newUntypedWorkflowStub(id).describe());
  }

  @Test
  void everyFieldIsReadFromTheSearchAttributesAndTheMemo() {
    OffsetDateTime wake = OffsetDateTime.of(2026, 11, 29, 3, 0, 0, 0, ZoneOffset.UTC);
    OffsetDateTime updated = OffsetDateTime.of(2026, 11, 29, 2, 0, 0, 0, ZoneOffset.UTC);
    // No worker polls "nobody": the run stays open, as a waiting ant's does, and describes as it was started.
    client.newUntypedWorkflowStub("AntWorkflow", WorkflowOptions.newBuilder().setTaskQueue("nobody")
        .setWorkflowId("ant/acme/alpha")
        .setTypedSearchAttributes(SearchAttributes.newBuilder()
            .set(AntSearchAttributes.COLONY, "acme").set(AntSearchAttributes.ANT, "alpha")
            .set(AntSearchAttributes.STATE, "backoff").set(AntSearchAttributes.PAUSED, true)
            .set(AntSearchAttributes.PAUSE_REASON, "budget").set(AntSearchAttributes.SESSIONS, 7L)
            .set(AntSearchAttributes.ERRORS, 2L).set(AntSearchAttributes.QUEUE, 1L)
            .set(AntSearchAttributes.NEXT_WAKE, wake).set(AntSearchAttributes.NEEDS_HUMAN, true)
            .set(AntSearchAttributes.LAST_OUTCOME, "rate_limit").set(AntSearchAttributes.HOST, "box")
            .set(AntSearchAttributes.UPDATED_AT, updated).build())
        .setMemo(Map.of(AntSearchAttributes.MEMO_ENGINE, "claude", AntSearchAttributes.MEMO_DESCRIPTION, "fixes bugs"))
        .build()).start();
    assertEquals(new AntRow("acme", "alpha", "ant/acme/alpha", "backoff", true, "budget", 7, 2, 1, wake.toInstant(),
        true, "rate_limit", "claude", "fixes bugs", "box", "nobody", true, updated.toInstant().toEpochMilli()),
        row("ant/acme/alpha"));
    assertTrue(row("ant/acme/alpha").named());
    assertNull(AntRow.card(client.newUntypedWorkflowStub("ant/acme/alpha").describe()), "no card: none");
  }

  @Test
  void anAntThatPublishedNothingIsNamedByItsIdAndARunThatIsOverIsNotRunning() {
    client.newUntypedWorkflowStub("AntWorkflow", WorkflowOptions.newBuilder().setTaskQueue("nobody")
        .setWorkflowId("ant/acme/beta").build()).start();
    AntRow fresh = row("ant/acme/beta");
    assertEquals("acme", fresh.colony());
    assertEquals("beta", fresh.ant());
    assertEquals(AntRow.UNKNOWN, fresh.state());
    assertEquals(0, fresh.updatedMillis());
    assertNull(fresh.nextWake());
    assertTrue(fresh.running());
    client.newUntypedWorkflowStub("ant/acme/beta").terminate("stopped");
    assertFalse(row("ant/acme/beta").running());

    client.newUntypedWorkflowStub("AntWorkflow", WorkflowOptions.newBuilder().setTaskQueue("nobody")
        .setWorkflowId("not-an-ant").build()).start();
    assertFalse(row("not-an-ant").named(), "neither an ant's id nor a published name");
  }
}
