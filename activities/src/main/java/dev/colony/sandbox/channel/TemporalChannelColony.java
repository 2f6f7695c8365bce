package dev.colony.sandbox.channel;

import dev.colony.ant.AntStats;
import dev.colony.ant.AntStatus;
import dev.colony.ant.AntWorkflow;
import dev.colony.mailbox.Mail;
import dev.colony.sandbox.channel.ChannelRules.Identity;
import dev.colony.spec.AntIds;
import dev.colony.client.Rpc;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowException;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowServiceException;
import java.time.Instant;

/**
 * The channel's requests done on Temporal with the worker's client, for the channel's own ant
 * only: mail is the {@code message} signal {@code colony send --from} sends, to a workflow of the
 * ant's own colony; the status is its own workflow's {@code status} and {@code stats} queries,
 * shown as {@code colony status ANT} shows them.
 */
public final class TemporalChannelColony implements ColonyChannel.Colony {
  private final WorkflowClient client;
  private final Identity who;

  public TemporalChannelColony(WorkflowClient client, Identity who) {
    this.client = client;
    this.who = who;
  }

  @Override
  public String send(String to, Mail mail) throws ColonyChannel.Refusal {
    AntWorkflow peer = client.newWorkflowStub(AntWorkflow.class, AntIds.workflowId(who.colony(), to));
    try {
      peer.message(mail);
    } catch (WorkflowNotFoundException | WorkflowServiceException e) {
      if (Rpc.notFound(e)) {
        throw notRunning(to);
      }
      throw new ColonyChannel.Refusal("the message to '" + to + "' was not sent: the colony did not answer ("
          + dev.colony.text.Printable.line(String.valueOf(e.getMessage()), 160) + ")");
    }
    return who.colony() + "/" + to + ": " + (mail.urgent() ? "urgent message" : "message") + " from " + who.ant() + " sent";
  }

  @Override
  public String status() throws ColonyChannel.Refusal {
    AntWorkflow self = client.newWorkflowStub(AntWorkflow.class, AntIds.workflowId(who.colony(), who.ant()));
    try {
      AntStatus status = self.status();
      AntStats stats = self.stats();
      return dev.colony.text.Printable.of(dev.colony.chat.impl.StatusText.detail(status, stats, Instant.now())).stripTrailing();
    } catch (WorkflowException e) {
      throw new ColonyChannel.Refusal("the status could not be read (" + dev.colony.text.Printable.line(
          String.valueOf(e.getMessage()), 160) + ")");
    }
  }

  private ColonyChannel.Refusal notRunning(String to) {
    return new ColonyChannel.Refusal("no running ant named '" + to + "' in colony '" + who.colony() + "'");
  }
}
