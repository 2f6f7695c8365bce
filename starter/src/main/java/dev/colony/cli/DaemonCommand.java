package dev.colony.cli;

import dev.colony.secrets.Invocation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code colony daemon status|stop}: the resident process that answers one-shot commands in
 * milliseconds (docs/cli.md, "Fast commands: the resident process"). It starts by itself at the first one-shot
 * command and stops by itself when idle; these say what it is doing and stop it now.
 */
@Command(name = "daemon", mixinStandardHelpOptions = true,
    description = "The resident process that makes one-shot commands fast: status shows it, stop stops it.",
    subcommands = {DaemonCommand.Status.class, DaemonCommand.Stop.class, DaemonCommand.Serve.class})
final class DaemonCommand implements Runnable {
  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** This build tree's jar (the one this JVM runs), or null when not run from a jar. */
  static Path jar() {
    try {
      Path p = Path.of(ColonyCli.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return Files.isRegularFile(p) ? p.toRealPath() : null;
    } catch (Exception e) {
      return null;
    }
  }

  static Path socket(Path jar) throws java.io.IOException {
    return Resident.runtimeDir(Invocation.env(), Resident.uid()).resolve(Resident.name(jar) + ".sock");
  }

  /**
   * Sends {@code verb} to this build's resident process and prints its answer (exit 0); when none
   * answers, prints {@code none} and exits {@code noneCode}.
   */
  private static int control(picocli.CommandLine.Model.CommandSpec spec, String verb, String purpose,
      java.util.function.Function<Path, String> none, int noneCode) throws Exception {
    Path jar = jar();
    if (jar == null) {
      throw new UserError("not run from colony.jar: no resident process " + purpose);
    }
    Path socket = socket(jar); // outside the try: a runtime directory it cannot name is an error, not "none runs"
    try {
      spec.commandLine().getOut().println(Resident.control(socket, verb));
      return 0;
    } catch (java.io.IOException e) {
      spec.commandLine().getOut().println(none.apply(jar));
      return noneCode;
    }
  }

  @Command(name = "status", mixinStandardHelpOptions = true,
      description = "Show the resident process of this build: pid, build, uptime, commands, memory. Exit 1 when none runs.")
  static final class Status implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      return control(spec, "status", "to ask", jar -> "no resident process runs for " + jar
          + " (it starts at the next one-shot command, such as colony status)", 1);
    }
  }

  @Command(name = "stop", mixinStandardHelpOptions = true,
      description = "Stop the resident process of this build (the next one-shot command starts another).")
  static final class Stop implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      return control(spec, "stop", "to stop", jar -> "no resident process was running", 0);
    }
  }

  @Command(name = "serve", hidden = true, mixinStandardHelpOptions = true,
      description = "Run the resident process in the foreground (the thin client starts it so).")
  static final class Serve implements Callable<Integer> {
    @Option(names = "--idle", paramLabel = "MINUTES", defaultValue = "${env:COLONY_DAEMON_IDLE:-180}",
        description = "Stop after this many minutes without a command ($COLONY_DAEMON_IDLE; default: 180).")
    long idleMinutes;

    /** Tests: seconds instead of minutes. */
    @Option(names = "--idle-seconds", hidden = true)
    Long idleSeconds;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      if (idleSeconds == null && (idleMinutes < 1 || idleMinutes > 7 * 24 * 60)) {
        throw new UsageError("--idle (or $COLONY_DAEMON_IDLE): between 1 and 10080 minutes");
      }
      Duration idle = idleSeconds != null ? Duration.ofSeconds(Math.max(1, idleSeconds)) : Duration.ofMinutes(idleMinutes);
      Path jar = jar();
      if (jar == null) {
        throw new UserError("not run from colony.jar: the resident process runs the built jar only");
      }
      return ResidentProcess.serve(jar, idle, new java.io.PrintStream(System.err, true));
    }
  }
}
