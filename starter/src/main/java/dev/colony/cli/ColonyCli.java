package dev.colony.cli;

import dev.colony.secrets.Secrets;
import dev.colony.worker.RedactingPrintStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code colony} command. Exit codes: 0 ok, 1 failure, 2 usage. */
@Command(name = "colony", mixinStandardHelpOptions = true, versionProvider = ColonyCli.Version.class,
    description = "Keeps a colony of autonomous coding agents (ants) working, supervised by Temporal.",
    subcommands = {
        InitCommand.class, ValidateCommand.class, DevCommand.class, ServerCommand.class, WorkerCommand.class,
        StartCommand.class, RunCommand.class, StatusCommand.class, ObserveCommand.class, DiscordCommand.class,
        SlackCommand.class, FakesCommand.class, ConsoleCommand.class,
        SignalCommands.Pause.class, SignalCommands.Resume.class, SignalCommands.Send.class,
        SignalCommands.Stop.class, SignalCommands.Clear.class, SignalCommands.Abort.class, SignalCommands.Approve.class,
        SignalCommands.Deny.class, TaskCommand.class, MergeCommand.class, McpCommand.class, UpgradeCommand.class,
        SchemaCommand.class, DaemonCommand.class,
        CommandLine.HelpCommand.class})
public final class ColonyCli extends CliContext.Root {
  ColonyCli(CliContext context) {
    super(context);
  }

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  public static void main(String[] args) throws Exception {
    main(args, CliContext.standard());
  }

  /** The CLI with {@code context} (a test's worker of a later release gives its own AntWorkflow). */
  static void main(String[] args, CliContext context) throws Exception {
    if (Boolean.getBoolean("colony.training")) {
      // The launcher's training run: started with -jar, exactly as the commands it prepares for.
      Training.main(args);
      return;
    }
    if (args.length == 0 || args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
      String help = HelpText.prebuilt();
      if (help != null) {
        System.out.print(help);
        System.out.flush();
        System.exit(0);
      }
    }
    // Logs, console chat and all other output of this process pass the one redactor.
    System.setOut(new RedactingPrintStream(new FileOutputStream(FileDescriptor.out), Secrets.process()));
    System.setErr(new RedactingPrintStream(new FileOutputStream(FileDescriptor.err), Secrets.process()));
    Logging.init();
    int code = commandLine(args, context).execute(args);
    System.exit(code);
  }

  /**
   * The exit code {@link #run} answers for a command the resident process cannot run as a process
   * of its own would ({@link dev.colony.secrets.Invocation.OwnProcessNeeded}): nothing was printed
   * or done, and the thin client runs it in a JVM of its own.
   */
  static final int OWN_PROCESS = -2;

  /**
   * Runs one command as {@link #main} does, printing to {@code out} and {@code err} (the resident
   * process's streams back to a caller); returns its exit code, or {@link #OWN_PROCESS}.
   */
  static int run(String[] args, CliContext context, java.io.PrintStream out, java.io.PrintStream err, boolean ansi) {
    PrintWriter o = new PrintWriter(new java.io.OutputStreamWriter(out, java.nio.charset.StandardCharsets.UTF_8), true);
    PrintWriter e = new PrintWriter(new java.io.OutputStreamWriter(err, java.nio.charset.StandardCharsets.UTF_8), true);
    try {
      if (args.length == 0 || args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
        String help = HelpText.prebuilt();
        if (help != null) {
          o.print(help);
          return 0;
        }
      }
      CommandLine cl = commandLine(args, context);
      cl.setOut(o);
      cl.setErr(e);
      // picocli decides colours from this process's terminal: here it is the caller's
      cl.setColorScheme(CommandLine.Help.defaultColorScheme(ansi ? CommandLine.Help.Ansi.ON : CommandLine.Help.Ansi.OFF));
      return cl.execute(args);
    } finally {
      o.flush();
      e.flush();
    }
  }

  static CommandLine commandLine() {
    return commandLine(CliContext.standard());
  }

  static CommandLine commandLine(CliContext context) {
    return configure(new CommandLine(new ColonyCli(context)));
  }

  private static CommandLine configure(CommandLine cl) {
    cl.setExecutionExceptionHandler(ColonyCli::handle);
    cl.setExecutionStrategy(ColonyCli::execute);
    return cl;
  }

  /**
   * Picocli's own strategy, except that a help request never hides an argument it did not
   * match: {@code colony dashboard --help} is an unknown command (exit 2), not the whole help and
   * exit 0, for a script as for a person.
   */
  private static int execute(CommandLine.ParseResult parsed) {
    CommandLine.ParseResult deepest = parsed;
    while (deepest.subcommand() != null) {
      deepest = deepest.subcommand();
    }
    if (!deepest.unmatched().isEmpty()) {
      CommandLine where = deepest.commandSpec().commandLine();
      String first = deepest.unmatched().get(0);
      PrintWriter err = where.getErr();
      err.println(deepest == parsed && !first.startsWith("-")
          ? "colony: unknown command '" + dev.colony.config.Problem.printable(first, 60) + "' (see colony --help)"
          : "colony: unexpected argument '" + dev.colony.config.Problem.printable(first, 60) + "' for '"
              + deepest.commandSpec().qualifiedName() + "' (see " + deepest.commandSpec().qualifiedName() + " --help)");
      err.flush();
      return 2;
    }
    return new CommandLine.RunLast().execute(parsed);
  }

  /**
   * The command line for {@code args}. A one-shot command (status, pause, ...) gets a root with
   * only that subcommand: picocli then reflects over one command instead of all twenty, which
   * is a good part of a short call's start. Anything else gets the whole tree.
   */
  static CommandLine commandLine(String[] args) {
    return commandLine(args, CliContext.standard());
  }

  /** The same, its commands using {@code context}. */
  static CommandLine commandLine(String[] args, CliContext context) {
    String first = null;
    for (String a : args) {
      if (!a.startsWith("-")) {
        first = a;
        break;
      }
    }
    java.util.function.Supplier<Object> only = first == null ? null : switch (first) {
      case "status" -> StatusCommand::new;
      case "pause" -> SignalCommands.Pause::new;
      case "resume" -> SignalCommands.Resume::new;
      case "send" -> SignalCommands.Send::new;
      case "stop" -> SignalCommands.Stop::new;
      case "clear" -> SignalCommands.Clear::new;
      case "abort" -> SignalCommands.Abort::new;
      case "approve" -> SignalCommands.Approve::new;
      case "deny" -> SignalCommands.Deny::new;
      case "task" -> TaskCommand::new;
      case "merge" -> MergeCommand::new;
      default -> null;
    };
    if (only == null || args.length == 0 || !args[0].equals(first)) {
      return commandLine(context); // root options first (-v status ...) or anything else: the whole tree
    }
    CommandLine cl = new CommandLine(new OneShot(context));
    cl.addSubcommand(only.get());
    return configure(cl);
  }

  /** The root of a one-shot command line: the same name, options and version as {@link ColonyCli}. */
  @Command(name = "colony", mixinStandardHelpOptions = true, versionProvider = ColonyCli.Version.class)
  static final class OneShot extends CliContext.Root {
    OneShot(CliContext context) {
      super(context);
    }

    @Override
    public void run() {
      // never reached: the subcommand is always given
    }
  }

  private static int handle(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
    if (e instanceof dev.colony.secrets.Invocation.OwnProcessNeeded) {
      return OWN_PROCESS;
    }
    // Messages quote what ants, humans and Temporal said: nothing of it reaches the terminal raw.
    PrintWriter err = new PrintWriter(new java.io.Writer() {
      @Override
      public void write(char[] buf, int off, int len) {
        cmd.getErr().write(dev.colony.text.Printable.of(new String(buf, off, len)));
      }

      @Override
      public void flush() {
        cmd.getErr().flush();
      }

      @Override
      public void close() {
        flush();
      }
    });
    if (e instanceof UsageError) {
      err.println("colony: " + e.getMessage());
      err.flush();
      return 2;
    }
    io.grpc.StatusRuntimeException grpc = grpcCause(e);
    if (e instanceof UserError) {
      err.println("colony: " + e.getMessage());
    } else if (grpc != null && (grpc.getStatus().getCode() == io.grpc.Status.Code.PERMISSION_DENIED
        || grpc.getStatus().getCode() == io.grpc.Status.Code.UNAUTHENTICATED)) {
      err.println("colony: Temporal refused the call (" + grpc.getStatus().getCode() + ": "
          + dev.colony.config.Problem.printable(String.valueOf(grpc.getStatus().getDescription()), 160)
          + "): check the API key (TEMPORAL_API_KEY) or client certificate and what it may do in this namespace.");
    } else if (grpc != null && (grpc.getStatus().getCode() == io.grpc.Status.Code.UNAVAILABLE
        // gRPC reports a connection that closed under a call in flight as UNKNOWN "channel closed"
        || grpc.getStatus().getCode() == io.grpc.Status.Code.UNKNOWN
            && String.valueOf(grpc.getStatus().getDescription()).toLowerCase(java.util.Locale.ROOT).contains("channel closed"))) {
      err.println("colony: lost the connection to Temporal" + at() + " ("
          + dev.colony.config.Problem.printable(String.valueOf(grpc.getStatus().getDescription()), 160)
          + "): is the server still running?");
    } else if (grpc != null && grpc.getStatus().getCode() == io.grpc.Status.Code.DEADLINE_EXCEEDED) {
      err.println("colony: Temporal" + at() + " did not answer in time: is the server still running, or overloaded?");
    } else {
      // What failed, then what Temporal said about it (a service exception's own message names
      // only the workflow).
      err.println("colony: " + e.getClass().getSimpleName() + ": " + e.getMessage()
          + (grpc == null || grpc == e ? "" : " (Temporal: " + grpc.getStatus().getCode() + ": "
              + dev.colony.config.Problem.printable(String.valueOf(grpc.getStatus().getDescription()), 300) + ")"));
      if (Logging.isVerbose()) {
        e.printStackTrace(err);
      } else {
        err.println("colony: run again with --verbose for details.");
      }
    }
    err.flush();
    return 1;
  }

  /** " at ADDRESS" of the connection this command made, for a call that failed after it. */
  private static String at() {
    String a = Temporal.lastAddress();
    return a == null ? "" : " at " + a;
  }

  /** The gRPC status that caused {@code e}, if any: the SDK wraps it in its own exceptions. */
  static io.grpc.StatusRuntimeException grpcCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof io.grpc.StatusRuntimeException s) {
        return s;
      }
    }
    return null;
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = ColonyCli.class.getPackage().getImplementationVersion();
      return new String[] {"colony " + (v == null ? "dev" : v)};
    }
  }
}
