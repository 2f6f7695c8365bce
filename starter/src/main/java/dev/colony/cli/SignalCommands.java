package dev.colony.cli;

import dev.colony.client.AntRow;
import dev.colony.ant.AntWorkflow;
import dev.colony.autonomy.Decide;
import dev.colony.mailbox.Mail;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
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

    /** ANT as a colony directory: sends {@code signal} to each of its running ants; returns their ids. */
    List<String> eachRunningAnt(Temporal t, Consumer<AntWorkflow> signal) {
      var colonyDir = ColonyDir.load(java.nio.file.Path.of(ant));
      List<String> running = new java.util.ArrayList<>();
      for (var a : colonyDir.ants()) {
        if (Ants.isRunning(t, a.workflowId())) {
          signal.accept(t.client.newWorkflowStub(AntWorkflow.class, a.workflowId()));
          running.add(a.workflowId());
        }
      }
      return running;
    }

    /** {@code --all}: the signal to every running ant of the colony in ANT (a directory). */
    int sendAll(Consumer<AntWorkflow> signal, String done) {
      try (Temporal t = Temporal.connect(temporal)) {
        List<String> ids = eachRunningAnt(t, signal);
        var out = spec.commandLine().getOut();
        out.printf("%s: %s to %d running ant%s%n", ant, done, ids.size(), ids.size() == 1 ? "" : "s");
        out.flush();
        return 0;
      }
    }

    int send(Consumer<AntWorkflow> signal, String done) {
      try (Temporal t = Temporal.connect(temporal)) {
        Ants.Ref ref = Ants.resolve(t, ant, colony);
        Ants.signal(t, ref, signal);
        spec.commandLine().getOut().println(ref.colony() + "/" + ref.ant() + ": " + done);
        spec.commandLine().getOut().flush();
      }
      return 0;
    }
  }

  @Command(name = "pause", mixinStandardHelpOptions = true,
      description = "Pause an ant after its current session (signal 'pause').")
  static final class Pause extends AntCommand {
    @Option(names = "--all", description = "ANT is a colony directory: pause every running ant of it.")
    boolean all;

    @Override
    public Integer call() {
      return all ? sendAll(AntWorkflow::pause, "pause sent")
          : send(AntWorkflow::pause, "pause sent; it pauses after its current session");
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
        return send(AntWorkflow::resume, "resume sent");
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
        for (var a : colony.ants()) {
          if (!restarted.contains(a.name()) && Ants.isRunning(t, a.workflowId())) {
            t.client.newWorkflowStub(AntWorkflow.class, a.workflowId()).resume();
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
        return send(AntWorkflow::stop, "stop sent");
      }
      var colony = ColonyDir.load(java.nio.file.Path.of(ant));
      var out = spec.commandLine().getOut();
      try (Temporal t = Temporal.connect(temporal)) {
        List<String> running = eachRunningAnt(t, AntWorkflow::stop);
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
      return send(AntWorkflow::abort, "abort sent");
    }
  }

  @Command(name = "clear", mixinStandardHelpOptions = true,
      description = "Discard an ant's queued messages (signal 'clear').")
  static final class Clear extends AntCommand {
    @Override
    public Integer call() {
      return send(AntWorkflow::clear, "clear sent");
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
      if (text.isBlank()) {
        throw new UserError("the message is empty");
      }
      int max = dev.colony.ant.AntWorkflow.MAX_MESSAGE_CHARS;
      if (from != null) {
        return sendFromAnt(text, max);
      }
      String key = id != null ? id : java.util.UUID.randomUUID().toString();
      dev.colony.mailbox.Mail mail = new dev.colony.mailbox.Mail(text, urgent, null, key);
      return send(a -> a.message(mail), (urgent ? "urgent message sent" : "message queued") + cutNote(text, max));
    }

    /**
     * What the ant keeps of a message over {@code max}, in characters a human counts: the ant cuts
     * at {@code max} UTF-16 units but never through an emoji ({@code SafeText.cut}, as the workflow
     * does), so one across the boundary is left out whole. Empty within the limit.
     */
    static String cutNote(String text, int max) {
      if (text.length() <= max) {
        return "";
      }
      String kept = dev.colony.text.SafeText.cut(text, max);
      return String.format(", cut to its first %,d of %,d characters (send the rest separately)",
          kept.codePointCount(0, kept.length()), text.codePointCount(0, text.length()));
    }

    /** An ant writes to another ant of its colony. */
    private int sendFromAnt(String text, int max) {
      String sender = from.strip();
      if (!sender.matches("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")) {
        throw new UserError("--from must be an ant name (letters, digits, '.', '_', '-'), not '" + Mail.printable(from) + "'");
      }
      if (text.length() > max) {
        throw new UserError(String.format("the message is %,d characters; an ant may send at most %,d", text.length(), max));
      }
      if (colony == null) {
        String env = System.getenv("COLONY_COLONY");
        colony = env == null || env.isBlank() ? null : env;
      }
      String target = ant.contains("/") ? ant.substring(ant.indexOf('/') + 1) : ant;
      if (target.equals(sender)) {
        throw new UserError("an ant cannot send a message to itself ('" + sender + "')");
      }
      String session = System.getenv("COLONY_SESSION");
      String key = id != null ? id : session != null && sender.equals(System.getenv("COLONY_ANT"))
          ? Mail.derivedId(sender, session, target, text) : java.util.UUID.randomUUID().toString();
      dev.colony.mailbox.Mail mail = new dev.colony.mailbox.Mail(text, urgent, sender, key);
      return send(a -> a.message(mail), (urgent ? "urgent message" : "message") + " from " + sender + " sent");
    }
  }

  /** Who a decision is recorded as made by, when the user does not say. */
  static String defaultDecider() {
    String user = System.getenv().getOrDefault("USER", System.getProperty("user.name", "someone"));
    String host;
    try {
      host = java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      host = "localhost";
    }
    return user + "@" + host + " (cli)";
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
      String who = by == null ? defaultDecider() : by;
      try (Temporal t = Temporal.connect(temporal)) {
        Ants.Ref ref = Ants.resolve(t, ant, colony);
        String target = checkWaiting(t, ref);
        Ants.signal(t, ref, a -> a.decide(new Decide(id, approve, who, note)));
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
