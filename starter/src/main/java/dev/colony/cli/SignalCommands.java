package dev.colony.cli;

import dev.colony.client.Actor;
import dev.colony.client.AntSteering;
import dev.colony.client.AntVerb;
import dev.colony.client.VerbRefused;
import dev.colony.client.Verbs;
import dev.colony.client.AntRow;
import dev.colony.autonomy.Decide;
import dev.colony.mailbox.Mail;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** Commands that send one signal to one ant. */
final class SignalCommands {
  private SignalCommands() {}

  abstract static class AntCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "ANT", description = "An ant name, or colony/ant.")
    String ant;

    @Option(names = "--colony", paramLabel = "NAME", description = "The ant's colony, when names clash.")
    String colony;

    @Mixin
    TemporalOptions temporal;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** This command's verb, read by the one parser from the command's name (the CLI names its verbs). */
    AntVerb verb() {
      return read(() -> VERBS.parse(spec.name(), ""));
    }

    /** ANT as a colony directory: sends {@code verb} to each of its running ants; returns their ids. */
    List<String> eachRunningAnt(Temporal t, AntVerb verb) {
      var colonyDir = ColonyDir.load(java.nio.file.Path.of(ant));
      AntSteering steering = new AntSteering(t.client);
      List<String> running = new java.util.ArrayList<>();
      for (var a : colonyDir.ants()) {
        if (Ants.isRunning(t, a.workflowId())) {
          steering.send(a.workflowId(), verb, cli());
          running.add(a.workflowId());
        }
      }
      return running;
    }

    /** {@code --all}: the verb to every running ant of the colony in ANT (a directory). */
    int sendAll(AntVerb verb) {
      try (Temporal t = Temporal.connect(temporal)) {
        List<String> ids = eachRunningAnt(t, verb);
        var out = spec.commandLine().getOut();
        out.printf("%s: %s sent to %d running ant%s%n", ant, verb.word(), ids.size(), ids.size() == 1 ? "" : "s");
        out.flush();
        return 0;
      }
    }

    /** The verb to ANT, as {@code who}; prints what was sent. */
    int send(AntVerb verb, Actor who) {
      try (Temporal t = Temporal.connect(temporal)) {
        Ants.Ref ref = Ants.resolve(t, ant, colony);
        String[] done = new String[1];
        Ants.signal(t, ref, stub -> done[0] = new AntSteering(t.client).send(ref.workflowId(), verb, who));
        spec.commandLine().getOut().println(ref.colony() + "/" + ref.ant() + ": " + done[0]);
        spec.commandLine().getOut().flush();
      }
      return 0;
    }

    int send(AntVerb verb) {
      return send(verb, cli());
    }
  }

  /** The words as the CLI names them. */
  private static final Verbs VERBS = Verbs.named();

  /** A refusal of the one parser, as the CLI shows bad input: one line, exit 1. */
  static <T> T read(java.util.function.Supplier<T> parse) {
    try {
      return parse.get();
    } catch (VerbRefused refusal) {
      throw new UserError(refusal.getMessage());
    }
  }

  /** Who runs this CLI, as every surface records who steered an ant ({@code user@host}, via {@code cli}). */
  static Actor cli() {
    String user = dev.colony.secrets.Invocation.env().getOrDefault("USER", System.getProperty("user.name", "someone"));
    String host;
    try {
      host = java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      host = "localhost";
    }
    return new Actor(user + "@" + host, "cli");
  }

  @Command(name = "pause", mixinStandardHelpOptions = true,
      description = "Pause an ant after its current session (signal 'pause').")
  static final class Pause extends AntCommand {
    @Option(names = "--all", description = "ANT is a colony directory: pause every running ant of it.")
    boolean all;

    @Override
    public Integer call() {
      return all ? sendAll(verb()) : send(verb());
    }
  }

  @Command(name = "resume", mixinStandardHelpOptions = true,
      description = "Resume a paused ant, or cut its backoff / rate-limit wait short (signal 'resume').")
  static final class Resume extends AntCommand {
    @Option(names = "--all", description = "ANT is a colony directory: resume every running ant of it, and "
        + "reset the supervision groups whose circuit breaker tripped.")
    boolean all;

    @Override
    public Integer call() {
      if (!all) {
        return send(verb());
      }
      // Ants of a failed group are brought back by the group's reset (a restart each); sending them
      // a resume as well would run two sessions back to back.
      var colony = ColonyDir.load(java.nio.file.Path.of(ant));
      var out = spec.commandLine().getOut();
      try (Temporal t = Temporal.connect(temporal)) {
        String id = dev.colony.supervision.ColonyWorkflow.workflowId(colony.colony().name());
        java.util.Set<String> restarted = new java.util.TreeSet<>();
        if (Ants.isRunning(t, id)) {
          var supervisor = t.client.newWorkflowStub(dev.colony.supervision.ColonyWorkflow.class, id);
          List<String> failed = supervisor.failedGroups();
          for (String g : failed) {
            colony.groups().stream().filter(x -> x.name().equals(g)).forEach(x -> restarted.addAll(x.ants()));
            if (colony.ant(g).isPresent() && colony.groups().stream().noneMatch(x -> x.ants().contains(g))) {
              restarted.add(g); // an ant supervised alone: its group bears its name
            }
          }
          supervisor.reset(null);
          out.println(id + ": " + (failed.isEmpty() ? "no failed group" : "failed groups reset ("
              + String.join(", ", failed) + "), their ants restarted"));
        }
        List<String> resumed = new java.util.ArrayList<>();
        AntSteering steering = new AntSteering(t.client);
        for (var a : colony.ants()) {
          if (!restarted.contains(a.name()) && Ants.isRunning(t, a.workflowId())) {
            steering.send(a.workflowId(), verb(), cli());
            resumed.add(a.name());
          }
        }
        out.printf("%s: resume sent to %d running ant%s%n", ant, resumed.size(), resumed.size() == 1 ? "" : "s");
        out.flush();
        return 0;
      }
    }
  }

  @Command(name = "stop", mixinStandardHelpOptions = true,
      description = "Stop an ant for good; a running session is cancelled (signal 'stop'). "
          + "With --all DIR: every ant of the colony, waiting until each has stopped.")
  static final class Stop extends AntCommand {
    @Option(names = "--all", description = "ANT is a colony directory: stop all its ants and wait for them.")
    boolean all;

    @Option(names = "--timeout", defaultValue = "60", paramLabel = "SECONDS",
        description = "With --all, how long to wait for the ants to stop (default: ${DEFAULT-VALUE}).")
    int timeoutSeconds;

    @Override
    public Integer call() throws InterruptedException {
      if (!all) {
        return send(verb());
      }
      var colony = ColonyDir.load(java.nio.file.Path.of(ant));
      var out = spec.commandLine().getOut();
      try (Temporal t = Temporal.connect(temporal)) {
        List<String> running = eachRunningAnt(t, verb());
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(timeoutSeconds).toNanos();
        java.util.List<String> left = new java.util.ArrayList<>(running);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
          left.removeIf(id -> !Ants.isRunning(t, id));
          if (!left.isEmpty()) {
            Thread.sleep(250);
          }
        }
        out.printf("colony '%s': %d of %d running ants stopped%n", colony.colony().name(),
            running.size() - left.size(), running.size());
        for (String id : left) {
          out.printf("  %s did not stop within %ds (is a worker running?)%n", id, timeoutSeconds);
        }
        out.flush();
        return left.isEmpty() ? 0 : 1;
      }
    }
  }

  @Command(name = "abort", mixinStandardHelpOptions = true,
      description = "Drop an ant's current task and queued messages; an ant paused by its overseer's "
          + "escalation goes on (signal 'abort').")
  static final class Abort extends AntCommand {
    @Override
    public Integer call() {
      return send(verb());
    }
  }

  @Command(name = "clear", mixinStandardHelpOptions = true,
      description = "Discard an ant's queued messages (signal 'clear').")
  static final class Clear extends AntCommand {
    @Override
    public Integer call() {
      return send(verb());
    }
  }

  @Command(name = "send", mixinStandardHelpOptions = true,
      description = "Queue a work instruction for an ant's next session; a paused ant resumes for it "
          + "(signal 'message'). --urgent interrupts the running session; --from sends as another ant "
          + "of the colony (inside a session: --from \"$COLONY_ANT\").")
  static final class Send extends AntCommand {
    @Parameters(index = "1..*", arity = "1..*", paramLabel = "TEXT", description = "The instruction.")
    List<String> words;

    @Option(names = "--urgent", description = "Interrupt the running session (grace, then kill) and start "
        + "the next one at once with this message first.")
    boolean urgent;

    @Option(names = "--from", paramLabel = "ANT", description = "The sending ant (same colony); the "
        + "recipient's prompt says who wrote.")
    String from;

    @Option(names = "--id", paramLabel = "KEY", description = "Idempotency key: a second message with the "
        + "same key is dropped. Default with --from inside a session: derived from the sender, the "
        + "session and the text, so a retried session does not send twice.")
    String id;

    @Override
    public Integer call() {
      String text = String.join(" ", words);
      if (from != null) {
        return sendFromAnt(text);
      }
      return send(read(() -> VERBS.message(text, urgent, id)));
    }

    /** An ant writes to another ant of its colony. */
    private int sendFromAnt(String text) {
      if (colony == null) {
        String env = dev.colony.secrets.Invocation.env("COLONY_COLONY");
        colony = env == null || env.isBlank() ? null : env;
      }
      String target = ant.contains("/") ? ant.substring(ant.indexOf('/') + 1) : ant;
      AntVerb.Send checked = read(() -> Verbs.fromAnt(from, target, text, urgent, id));
      String sender = checked.from();
      String session = dev.colony.secrets.Invocation.env("COLONY_SESSION");
      String key = id != null ? id : session != null && sender.equals(dev.colony.secrets.Invocation.env("COLONY_ANT"))
          ? Mail.derivedId(sender, session, target, checked.text()) : null;
      return send(new AntVerb.Send(checked.text(), urgent, sender, key));
    }
  }

  abstract static class DecideCommand extends AntCommand {
    @Parameters(index = "1", arity = "0..1", paramLabel = "ID",
        description = "The request number from the ⚙️ message (default: the oldest waiting).")
    Integer id;

    @Option(names = "--by", paramLabel = "NAME", description = "Who decides, for the history (default: user@host).")
    String by;

    @Option(names = "--note", paramLabel = "TEXT", description = "A reason, passed on to the agent.")
    String note;

    int decide(boolean approve) {
      // --by is recorded as given; else user@host (cli), as every surface records its person
      Actor who = by == null ? cli() : new Actor(by, "cli", true);
      AntVerb.Decide verb = read(() -> VERBS.decide(approve, id, note));
      try (Temporal t = Temporal.connect(temporal)) {
        Ants.Ref ref = Ants.resolve(t, ant, colony);
        String target = checkWaiting(t, ref);
        Ants.signal(t, ref, a -> new AntSteering(t.client).send(ref.workflowId(), verb, who));
        spec.commandLine().getOut().println(ref.colony() + "/" + ref.ant() + ": " + (approve ? "approval" : "denial")
            + " sent for " + target);
        spec.commandLine().getOut().flush();
      }
      return 0;
    }

    /**
     * Asks the ant which requests wait before deciding, so a wrong id or nothing waiting is an
     * error, not "sent". With no worker to answer, the decision is sent anyway and applied when
     * one runs (it waits in Temporal).
     */
    private String checkWaiting(Temporal t, Ants.Ref ref) {
      java.util.List<dev.colony.autonomy.PendingConfirmation> waiting;
      try {
        WorkerCheck workers = StatusCommand.workersOf(t, temporal, ref, new AntRow[1]);
        if (Boolean.FALSE.equals(workers.polling())) {
          throw new UserError("no worker");
        }
        Ants.Live live = Ants.live(t, ref, StatusCommand.LIVE_WITHIN);
        if (live == null) {
          throw new UserError("no answer");
        }
        waiting = live.status().confirmations();
      } catch (UserError noAnswer) {
        return (id == null ? "the oldest waiting request" : "request #" + id)
            + " (no worker answered, so it could not be checked; the ant applies it when a worker runs)";
      }
      String list = waiting.stream().map(c -> "#" + c.id() + " (" + c.tool() + ": " + c.summary() + ")")
          .collect(java.util.stream.Collectors.joining(", "));
      if (waiting.isEmpty()) {
        throw new UserError(ref.colony() + "/" + ref.ant() + " has no request waiting for a decision");
      }
      if (id != null && waiting.stream().noneMatch(c -> c.id() == id)) {
        throw new UserError("no request #" + id + " waiting at " + ref.colony() + "/" + ref.ant() + "; waiting: " + list);
      }
      var chosen = id == null ? waiting.get(0) : waiting.stream().filter(c -> c.id() == id).findFirst().orElseThrow();
      return "request #" + chosen.id() + " (" + chosen.tool() + ": " + chosen.summary() + ")";
    }
  }

  @Command(name = "approve", mixinStandardHelpOptions = true,
      description = "Approve a dangerous action an ant is waiting on (signal 'decide').")
  static final class Approve extends DecideCommand {
    @Override
    public Integer call() {
      return decide(true);
    }
  }

  @Command(name = "deny", mixinStandardHelpOptions = true,
      description = "Deny a dangerous action an ant is waiting on (signal 'decide').")
  static final class Deny extends DecideCommand {
    @Override
    public Integer call() {
      return decide(false);
    }
  }
}
