package dev.colony.cli;

import dev.colony.ant.AntRun;
import dev.colony.ant.AntWorkflow;
import dev.colony.ant.AntWorkflowImpl;
import io.temporal.workflow.TimerOptions;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.time.Duration;

/**
 * The {@code colony} CLI of a made-up next release, for the upgrade test: its AntWorkflow issues
 * one more command than today's (a short timer as each run starts), a change that no running
 * history of today's release could replay.
 */
public final class NextReleaseWorker {
  /** The summary of the timer only the next release starts. */
  public static final String MARK = "colony next: a timer today's release does not have";

  private NextReleaseWorker() {}

  public static void main(String[] args) throws Exception {
    ColonyCli.main(args, CliContext.standard().withAntWorkflow(NextAntWorkflow.class));
  }

  /** Today's ant, plus one timer at the start of every run. */
  public static class NextAntWorkflow extends AntWorkflowImpl implements AntWorkflow {
    @WorkflowInit
    public NextAntWorkflow(AntRun run) {
      super(run);
    }

    @Override
    public void run(AntRun run) {
      Workflow.newTimer(Duration.ofMillis(10), TimerOptions.newBuilder().setSummary(MARK).build()).get();
      super.run(run);
    }
  }
}
