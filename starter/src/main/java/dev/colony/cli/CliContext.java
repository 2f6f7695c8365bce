package dev.colony.cli;

import java.io.InputStream;
import java.util.function.Supplier;
import picocli.CommandLine;

/**
 * What a command reaches the world through, handed down from the command line's root (no static a
 * test assigns): the task board and the merge queues it opens, who a change is recorded as made by,
 * standard input, and the AntWorkflow implementation a worker registers. {@link #standard()} is
 * the real one; a test builds its own with the {@code with...} methods and
 * {@link ColonyCli#commandLine(String[], CliContext)}.
 *
 * @param boards opens the board a task command works on
 * @param queues opens the merge queues a merge command works on
 * @param who who a change is recorded as made by ({@code @USER}, else {@code cli})
 * @param stdin standard input, for {@code --body-file -}
 * @param antWorkflow the AntWorkflow implementation workers register (a later release's in upgrade tests)
 */
record CliContext(TaskCommand.Boards boards, MergeCommand.Queues queues, Supplier<String> who,
    Supplier<InputStream> stdin, Class<? extends dev.colony.ant.AntWorkflow> antWorkflow) {

  /** The real world: Temporal's board and queues, $USER, System.in, today's AntWorkflow. */
  static CliContext standard() {
    return new CliContext(TaskCommand::openTemporal, MergeCommand::openTemporal,
        () -> TaskCommand.by(dev.colony.secrets.Invocation.env("USER")), () -> System.in, dev.colony.ant.AntWorkflowImpl.class);
  }

  CliContext withBoards(TaskCommand.Boards b) {
    return new CliContext(b, queues, who, stdin, antWorkflow);
  }

  CliContext withQueues(MergeCommand.Queues q) {
    return new CliContext(boards, q, who, stdin, antWorkflow);
  }

  CliContext withWho(Supplier<String> w) {
    return new CliContext(boards, queues, w, stdin, antWorkflow);
  }

  CliContext withStdin(Supplier<InputStream> in) {
    return new CliContext(boards, queues, who, in, antWorkflow);
  }

  CliContext withAntWorkflow(Class<? extends dev.colony.ant.AntWorkflow> w) {
    return new CliContext(boards, queues, who, stdin, w);
  }

  /**
   * A command line's root (the whole tree's, or a one-shot command's): it holds the context its
   * commands use, and the options every command inherits.
   */
  abstract static class Root implements Runnable {
    private final CliContext context;

    Root(CliContext context) {
      this.context = context;
    }

    CliContext context() {
      return context;
    }

    @CommandLine.Option(names = {"-v", "--verbose"}, scope = CommandLine.ScopeType.INHERIT,
        description = "Log what the worker and the SDK do.")
    void verbose(boolean on) {
      if (on) {
        Logging.verbose();
      }
    }
  }

  /** The context of the command line {@code spec} belongs to (its root's). */
  static CliContext of(CommandLine.Model.CommandSpec spec) {
    return spec.root().userObject() instanceof Root r ? r.context() : standard();
  }
}
