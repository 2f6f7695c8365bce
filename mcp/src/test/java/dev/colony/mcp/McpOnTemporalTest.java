package dev.colony.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.ant.AntRun;
import dev.colony.ant.AntWorkflow;
import dev.colony.autonomy.Decide;
import dev.colony.client.FakeAnt;
import dev.colony.client.TemporalColonySource;
import dev.colony.secrets.Secrets;
import dev.colony.testing.Specs;
import io.modelcontextprotocol.spec.McpSchema;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The tools over the client module on the in-memory Temporal: an ant's verbs arrive as its
 * signals, the ant's history recording the MCP client and the operator as who sent them.
 */
@Timeout(60)
class McpOnTemporalTest {
  TestWorkflowEnvironment env;
  WorkflowClient client;
  ColonyMcp mcp;

  @BeforeEach
  void start() {
    env = TestWorkflowEnvironment.newInstance();
    env.newWorker("q").registerWorkflowImplementationTypes(FakeAnt.class);
    env.start();
    client = env.getWorkflowClient();
    AntWorkflow alpha = client.newWorkflowStub(AntWorkflow.class, WorkflowOptions.newBuilder().setTaskQueue("q")
        .setWorkflowId("ant/hello/alpha").build());
    WorkflowClient.start(alpha::run, new AntRun(Specs.ant("alpha").colony("hello").build(), null));
    source = new TemporalColonySource(client, "hello", null);
    mcp = new ColonyMcp(source, null, null, new Secrets(), "dana");
  }

  TemporalColonySource source;

  @AfterEach
  void stop() {
    env.close();
  }

  private List<HistoryEvent> signals() {
    return client.fetchHistory("ant/hello/alpha").getEvents().stream()
        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED).toList();
  }

  /**
   * An ant's status (its card, then its session's turns from the history) describes the ant once:
   * two calls to Temporal, where it made three (a second describe for the turns).
   */
  @Test
  void anAntsStatusDescribesTheAntOnceThenReadsItsHistory() {
    dev.colony.testing.Eventually.eventually(() -> source.ant("alpha") != null && source.ant("alpha").row() != null,
        "alpha's row");
    Map<String, Long> before = source.callsByMethod();
    McpSchema.CallToolResult status = mcp.call("ant_status", Map.of("ant", "alpha"), "claude-code");
    assertFalse(Boolean.TRUE.equals(status.isError()), status.toString());
    com.fasterxml.jackson.databind.JsonNode answer = Answer.MAPPER.valueToTree(status.structuredContent());
    assertTrue(answer.path("current_session").has("turns"), answer.toString());
    Map<String, Long> after = source.callsByMethod();
    Map<String, Long> made = new java.util.TreeMap<>();
    after.forEach((method, n) -> {
      long d = n - before.getOrDefault(method, 0L);
      if (d > 0) {
        made.put(method, d);
      }
    });
    assertEquals(Map.of("DescribeWorkflowExecution", 1L, "GetWorkflowExecutionHistory", 1L), made);
  }

  @Test
  void theVerbsAreTheAntsSignalsSentAsTheClient() {
    McpSchema.CallToolResult paused = mcp.call("ant_pause", Map.of("ant", "alpha"), "claude-code");
    assertFalse(Boolean.TRUE.equals(paused.isError()), paused.toString());
    McpSchema.CallToolResult denied = mcp.call("ant_decide",
        Map.of("ant", "alpha", "decision", "deny", "request", 3, "note", "too risky"), "claude-code");
    assertFalse(Boolean.TRUE.equals(denied.isError()), denied.toString());
    McpSchema.CallToolResult resumed = mcp.call("ant_resume", Map.of("ant", "alpha"), "claude-code");
    assertFalse(Boolean.TRUE.equals(resumed.isError()), resumed.toString());
    dev.colony.testing.Eventually.eventually(() -> signals().size() == 3, "the three signals in the history");
    List<HistoryEvent> s = signals();
    assertEquals(List.of("pause", "decide", "resume"),
        s.stream().map(e -> e.getWorkflowExecutionSignaledEventAttributes().getSignalName()).toList());
    assertEquals(List.of("mcp:claude-code (dana)", "mcp:claude-code (dana)", "mcp:claude-code (dana)"),
        s.stream().map(e -> e.getWorkflowExecutionSignaledEventAttributes().getIdentity()).toList());
    Decide d = client.getOptions().getDataConverter().fromPayloads(0,
        Optional.of(s.get(1).getWorkflowExecutionSignaledEventAttributes().getInput()), Decide.class, Decide.class);
    assertEquals(new Decide(3, false, "claude-code (dana) (mcp)", "too risky"), d);
    McpSchema.CallToolResult gone = mcp.call("ant_pause", Map.of("ant", "gamma"), "claude-code");
    assertTrue(Boolean.TRUE.equals(gone.isError()));
    assertEquals("no ant 'gamma' runs in colony 'hello'", ((McpSchema.TextContent) gone.content().get(0)).text());
  }
}
