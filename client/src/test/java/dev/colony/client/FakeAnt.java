package dev.colony.client;

import dev.colony.ant.AntRun;
import dev.colony.ant.AntStats;
import dev.colony.ant.AntStatus;
import dev.colony.ant.AntWorkflow;
import dev.colony.autonomy.ConfirmationDecision;
import dev.colony.autonomy.ConfirmationRequest;
import dev.colony.autonomy.Decide;
import dev.colony.mailbox.Mail;
import dev.colony.overseer.TurnReply;
import dev.colony.overseer.TurnReport;
import dev.colony.spec.AntSpec;
import io.temporal.workflow.Workflow;
import java.util.List;

/**
 * An ant workflow that only takes what it is sent (a stop ends it): for the tests of every surface
 * that steers or reads an ant on a test server (the client's, the console's), in the client's test-jar.
 */
public class FakeAnt implements AntWorkflow {
  private boolean stopped;

  @Override
  public void run(AntRun run) {
    Workflow.await(() -> stopped);
  }

  @Override
  public void pause() {}

  @Override
  public void resume() {}

  @Override
  public void stop() {
    stopped = true;
  }

  @Override
  public void message(Mail mail) {}

  @Override
  public void restart(dev.colony.supervision.Restart restart) {}

  @Override
  public void sessionStarted(int session) {}

  @Override
  public void githubIssue(dev.colony.trigger.IssueEvent issue) {}

  @Override
  public void abort() {}

  @Override
  public TurnReply reportTurns(TurnReport report) {
    return new TurnReply(List.of(), false);
  }

  @Override
  public void validateReportTurns(TurnReport report) {}

  @Override
  public void upgrade() {}

  @Override
  public void clear() {}

  @Override
  public void tasksWaiting() {}

  @Override
  public void taskWithdrawn(String taskId) {}

  @Override
  public void mergeNews(dev.colony.merge.MergeNews news) {}

  @Override
  public void configure(AntSpec spec) {}

  @Override
  public ConfirmationDecision confirm(ConfirmationRequest request) {
    return null;
  }

  @Override
  public void decide(Decide decision) {}

  @Override
  public AntStatus status() {
    return null;
  }

  @Override
  public AntStats stats() {
    return null;
  }

  @Override
  public String taskHeld() {
    return "";
  }
}
