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
 * milliseconds (see "Fast commands" in the README). It starts by itself at the first one-shot
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

  @Command(name = "status", mixinStandardHelpOptions = true,
      description = "Show the resident process of this build: pid, build, uptime, commands, memory. Exit 1 when none runs.")
  static final class Status implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      Path jar = jar();
      if (jar == null) {
        throw new UserError("not run from colony.jar: no resident process to ask");
      }
      Path socket = socket(jar);
      try {
        spec.commandLine().getOut().println(Resident.control(socket, "status"));
        return 0;
      } catch (java.io.IOException e) {
        spec.commandLine().getOut().println("no resident process runs for " + jar
            + " (it starts at the next one-shot command, such as colony status)");
        return 1;
      }
    }
  }

  @Command(name = "stop", mixinStandardHelpOptions = true,
      description = "Stop the resident process of this build (the next one-shot command starts another).")
  static final class Stop implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      Path jar = jar();
      if (jar == null) {
        throw new UserError("not run from colony.jar: no resident process to stop");
      }
      Path socket = socket(jar);
      try {
        spec.commandLine().getOut().println(Resident.control(socket, "stop"));
      } catch (java.io.IOException e) {
        spec.commandLine().getOut().println("no resident process was running");
      }
      return 0;
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
