package dev.colony.client;

import dev.colony.ant.AntWorkflow;
import dev.colony.mailbox.Mail;
import io.temporal.client.WorkflowClient;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sends an {@link AntVerb} to an ant's workflow, the same way from every surface: one signal, sent
 * by a client whose identity is the {@link Actor}'s (so the ant's history says who, and through
 * which surface), a decision recorded as {@link Actor#decidedBy()}, and one sentence back saying
 * what was sent. Temporal's errors (the ant not running, no answer) reach the caller, which words
 * them in its own way.
 */
public final class AntSteering {
  /** Clients kept per identity; beyond this many the cache starts afresh (names come from people). */
  private static final int MAX_CLIENTS = 100;

  private final WorkflowClient client;
  private final Map<String, WorkflowClient> byIdentity = new ConcurrentHashMap<>();

  /** Over {@code client}'s connection (its stubs: a counting one stays counting). */
  public AntSteering(WorkflowClient client) {
    this.client = client;
  }

  /**
   * Sends {@code verb} to the workflow {@code workflowId} as {@code who}; returns what was sent
   * ("pause sent; it pauses after its current session", "message queued, cut to ...").
   */
  public String send(String workflowId, AntVerb verb, Actor who) {
    AntWorkflow ant = clientOf(who).newWorkflowStub(AntWorkflow.class, workflowId);
    return switch (verb) {
      case AntVerb.Pause p -> {
        ant.pause();
        yield "pause sent; it pauses after its current session";
      }
      case AntVerb.Resume r -> {
        ant.resume();
        yield "resume sent";
      }
      case AntVerb.Stop s -> {
        ant.stop();
        yield "stop sent";
      }
      case AntVerb.Abort a -> {
        ant.abort();
        yield "abort sent";
      }
      case AntVerb.Clear c -> {
        ant.clear();
        yield "clear sent";
      }
      case AntVerb.Send m -> {
        ant.message(new Mail(m.text(), m.urgent(), m.from(), m.id() != null ? m.id() : UUID.randomUUID().toString()));
        yield m.from() != null ? (m.urgent() ? "urgent message" : "message") + " from " + m.from() + " sent"
            : (m.urgent() ? "urgent message sent" : "message queued") + Verbs.cutNote(m.text());
      }
      case AntVerb.Decide d -> {
        ant.decide(new dev.colony.autonomy.Decide(d.id(), d.approve(), who.decidedBy(), d.note()));
        yield (d.approve() ? "approval" : "denial") + " sent for "
            + (d.id() == null ? "the oldest waiting request" : "request #" + d.id());
      }
      case AntVerb.Status s -> throw new IllegalArgumentException("status is read, not sent");
      case AntVerb.Stats s -> throw new IllegalArgumentException("stats are read, not sent");
    };
  }

  private WorkflowClient clientOf(Actor who) {
    if (byIdentity.size() > MAX_CLIENTS) {
      byIdentity.clear();
    }
    return byIdentity.computeIfAbsent(who.identity(), id -> WorkflowClient.newInstance(client.getWorkflowServiceStubs(),
        client.getOptions().toBuilder().setIdentity(id).build()));
  }
}
