package dev.colony.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.ant.AntRun;
import dev.colony.ant.AntWorkflow;
import dev.colony.autonomy.Decide;
import dev.colony.mailbox.Mail;
import dev.colony.testing.Specs;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The one executor: each verb is one signal, sent as the actor, with the same sentence back from every surface. */
@Timeout(60)
class AntSteeringTest {
  TestWorkflowEnvironment env;
  WorkflowClient client;
  AntSteering steering;

  @BeforeEach
  void start() {
    env = TestWorkflowEnvironment.newInstance();
    env.newWorker("q").registerWorkflowImplementationTypes(FakeAnt.class);
    env.start();
    client = env.getWorkflowClient();
    AntWorkflow alpha = client.newWorkflowStub(AntWorkflow.class, WorkflowOptions.newBuilder().setTaskQueue("q")
        .setWorkflowId("ant/hello/alpha").build());
    WorkflowClient.start(alpha::run, new AntRun(Specs.ant("alpha").colony("hello").build(), null));
    steering = new AntSteering(client);
  }

  @AfterEach
  void stop() {
    env.close();
  }

  private List<HistoryEvent> signals() {
    return client.fetchHistory("ant/hello/alpha").getEvents().stream()
        .filter(e -> e.hasWorkflowExecutionSignaledEventAttributes()).toList();
  }

  private <T> T input(HistoryEvent e, Class<T> type) {
    return client.getOptions().getDataConverter().fromPayloads(0,
        Optional.of(e.getWorkflowExecutionSignaledEventAttributes().getInput()), type, type);
  }

  @Test
  void eachVerbIsOneSignalSentAsItsActorWithOneSentenceBack() throws Exception {
    Verbs named = Verbs.named();
    Verbs chat = Verbs.typed("/");
    Actor ada = new Actor("Ada", "console");
    Actor dana = new Actor("dana", "Discord");
    String id = "ant/hello/alpha";
    assertEquals("pause sent; it pauses after its current session", steering.send(id, named.parse("pause", ""), ada));
    assertEquals("resume sent", steering.send(id, chat.parse("start", ""), dana), "the old name is the verb it names");
    assertEquals("abort sent", steering.send(id, chat.parse("abort", ""), dana));
    assertEquals("clear sent", steering.send(id, named.parse("clear", ""), ada));
    assertEquals("urgent message sent", steering.send(id, chat.parse("urgent", "fix the build"), dana));
    assertEquals("message queued, cut to its first 16,000 of 16,010 characters (send the rest separately)",
        steering.send(id, named.message("x".repeat(16_010), false), ada));
    assertEquals("message from scout sent", steering.send(id, Verbs.fromAnt("scout", "alpha", "hi", false, "k1"), ada));
    assertEquals("denial sent for request #3", steering.send(id, chat.parse("deny", "3 too risky"), dana));
    assertEquals("approval sent for the oldest waiting request", steering.send(id, named.decide(true, null, null),
        new Actor("erin", "cli", true)));
    assertThrows(IllegalArgumentException.class, () -> steering.send(id, chat.parse("status", ""), dana), "a read is not sent");
    // The test server writes a signal that came during a workflow task once the task completes.
    dev.colony.testing.Eventually.eventually(() -> signals().size() == 9, "the nine signals in the history");
    List<HistoryEvent> s = signals();
    assertEquals("stop sent", steering.send(id, named.parse("stop", ""), ada));
    client.newUntypedWorkflowStub(id).getResult(20, java.util.concurrent.TimeUnit.SECONDS, Void.class); // stopped for good
    assertEquals(List.of("pause", "resume", "abort", "clear", "message", "message", "message", "decide", "decide"),
        s.stream().map(e -> e.getWorkflowExecutionSignaledEventAttributes().getSignalName()).toList());
    assertEquals(List.of("console:Ada", "Discord:dana", "Discord:dana", "console:Ada", "Discord:dana", "console:Ada",
            "console:Ada", "Discord:dana", "cli:erin"),
        s.stream().map(e -> e.getWorkflowExecutionSignaledEventAttributes().getIdentity()).toList());
    Mail urgent = input(s.get(4), Mail.class);
    assertEquals("fix the build", urgent.text());
    assertTrue(urgent.urgent());
    assertNotNull(urgent.id(), "a human's message gets a fresh id");
    assertFalse(input(s.get(5), Mail.class).urgent());
    assertEquals(new Mail("hi", false, "scout", "k1"), input(s.get(6), Mail.class));
    assertEquals(new Decide(3, false, "dana (Discord)", "too risky"), input(s.get(7), Decide.class));
    assertEquals(new Decide(null, true, "erin", null), input(s.get(8), Decide.class));
  }
}
