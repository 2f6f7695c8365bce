package dev.colony.chat.impl;

import dev.colony.ant.AntStats;
import dev.colony.ant.AntStatus;
import dev.colony.ant.AntWorkflow;
import dev.colony.autonomy.PendingConfirmation;
import dev.colony.board.TaskBoard;
import dev.colony.board.TemporalTaskBoard;
import dev.colony.client.Actor;
import dev.colony.client.AntSteering;
import dev.colony.client.AntVerb;
import dev.colony.client.VerbRefused;
import dev.colony.client.Verbs;
import dev.colony.spec.AntIds;
import dev.colony.task.TaskSettings;
import io.temporal.client.WorkflowClient;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * What a human's words in an ant's channel do, on any chat: a command answered from the workflow,
 * a work instruction, or a decision on a confirmation request; and who may give them (the
 * operators). The chat bridges (Discord, Slack) turn what their platform delivers into calls here.
 */
public final class ChannelCommands {
  /**
   * The commands this chat offers (also its slash commands on Discord). The ant's words among them
   * are read by {@link Verbs}, like on every surface; {@code help}, {@code task} and {@code tasks}
   * are the chat's own. {@code /stop} is not offered: typed, it answers which word to use (see
   * {@link Verbs}); the old name {@code /start} still resumes, read there and never offered here.
   */
  public static final List<String> COMMANDS = List.of("help", "status", "stats", "usage", "pause",
      "resume", "clear", "urgent", "abort", "task", "tasks");

  /** The help, with {@code %s} where the chat's command prefix goes ("/" or "/colony "). */
  private static final String HELP = """
      Colony commands (in an ant's channel; with several ants in one channel, name the ant first: `worker %1$spause`)
      `%1$sstatus` the ant's state · `%1$sstats` or `%1$susage` sessions, turns, cost, tokens
      `%1$spause` pause after the current session · `%1$sresume` go on (to stop an ant for good: `colony stop ANT` or the console)
      `%1$sclear` drop queued instructions · `%1$surgent TEXT` interrupt the running session and start on TEXT now
      `%1$sabort` drop the current task and the queue (the answer to a 🚨 escalation; `%1$sresume` lets it go on)
      `%1$shelp` this help
      Anything else is a work instruction for the next session. %2$s
      """ + ChatTasks.HELP;

  private final WorkflowClient client;
  private final String colony;
  private final OperatorPolicy policy;
  private final String help;
  private final String prefix;
  private final ChatTasks tasks;
  private final String approvals;
  /** The ant's words, read as typed here; sent by {@link #steering} as the speaker {@link #via} this chat. */
  private final Verbs verbs;
  private final AntSteering steering;
  private final String via;

  /** On the colony's task board in Temporal (see {@link TemporalTaskBoard}). */
  public ChannelCommands(WorkflowClient client, String colony, OperatorPolicy policy, String prefix, String approvals) {
    this(client, colony, policy, prefix, approvals, new TemporalTaskBoard(client, colony, TaskSettings.defaults()));
  }

  /**
   * @param prefix how commands are written on this chat in the help ("/" on Discord)
   * @param approvals how a request is approved or denied on this chat, for the help
   * @param board the colony's task board ({@code /task}, {@code /tasks} and the task buttons)
   */
  public ChannelCommands(WorkflowClient client, String colony, OperatorPolicy policy, String prefix, String approvals,
      TaskBoard board) {
    this(client, colony, policy, prefix, approvals, board, "chat");
  }

  /** @param via the chat's name ("Discord", "Slack"), for the history: who steered an ant, through what */
  public ChannelCommands(WorkflowClient client, String colony, OperatorPolicy policy, String prefix, String approvals,
      TaskBoard board, String via) {
    this.client = client;
    this.approvals = approvals;
    this.verbs = Verbs.typed(prefix);
    this.steering = client == null ? null : new AntSteering(client);
    this.via = via;
    this.colony = colony;
    this.policy = policy;
    this.help = HELP.formatted(prefix, approvals);
    this.prefix = prefix;
    this.tasks = new ChatTasks(board, prefix);
  }

  public static String describe(String c) {
    return switch (c) {
      case "help" -> "What the colony's commands do";
      case "status" -> "The ant's state, queue and next wake-up";
      case "stats", "usage" -> "Sessions, turns, cost and tokens";
      case "pause" -> "Pause the ant after its current session";
      case "resume" -> "Resume a paused ant";
      case "urgent" -> "Interrupt the running session and start on this instruction now";
      case "abort" -> "Drop the current task and the queue; an escalated ant goes on";
      case "task" -> "The task board: add, show, approve, requeue, move, assign, comment (task help)";
      case "tasks" -> "The task board by column, or one column (todo, in_review, ...)";
      default -> "Drop the ant's queued instructions";
    };
  }

  public String help() {
    return help;
  }

  /**
   * Handles one line a human wrote in a channel where the ants {@code here} listen; a line that
   * starts with one of {@code prefixes} is a command. Returns the reply, or null.
   */
  public String onText(List<String> here, Speaker who, String text, String... prefixes) {
    String t = text.strip();
    if (t.isEmpty()) {
      return null;
    }
    List<String> targets = here;
    String[] words = t.split("\\s+", 2);
    String first = words[0].endsWith(":") ? words[0].substring(0, words[0].length() - 1) : words[0];
    if (here.size() > 1 && here.contains(first) && words.length > 1) {
      targets = List.of(first);
      t = words[1].strip();
    }
    for (String p : prefixes.length == 0 ? new String[] {"/"} : prefixes) {
      if (t.startsWith(p) && t.length() > p.length() && Character.isLetter(t.charAt(p.length()))) {
        String[] parts = t.substring(p.length()).split("\\s+", 2);
        return command(parts[0].toLowerCase(Locale.ROOT), parts.length > 1 ? parts[1].strip() : "", targets, who);
      }
    }
    if (!allowedAll(targets, who)) {
      return refused();
    }
    AntVerb.Send message = verbs.message(t, false);
    String sent = null;
    for (String ant : targets) {
      sent = steering.send(AntIds.workflowId(colony, ant), message, actor(who));
    }
    // Each ant answers 📥 (and ▶️ when it was paused) in the channel; a cut is said here, as on every surface.
    return Verbs.cutNote(message.text()).isEmpty() ? null : "📥 " + sent + ".";
  }

  public String command(String cmd, String arg, List<String> targets, Speaker who) {
    if (cmd.equals("help")) {
      return help;
    }
    boolean taskWord = cmd.equals("task") || cmd.equals("tasks");
    AntVerb verb = null;
    if (!taskWord) {
      try {
        verb = verbs.parse(cmd, arg);
      } catch (VerbRefused refusal) {
        return refusal.getMessage();
      }
      if (verb instanceof AntVerb.Decide) {
        return approvals; // a request is decided on its post, where the chat shows which one
      }
    }
    if (!allowedAll(targets, who)) {
      return refused();
    }
    if (taskWord) {
      // Cleaned once, so the check reads the words the command runs (a control character inside
      // "done" must not hide a move to Done from it).
      String words = ChatTasks.cleaned(arg);
      if (ChatTasks.decides(cmd, words)) {
        List<String> deciders = withOwner(targets, ChatTasks.taskIdOf(words));
        if (!mayDecide(deciders, who)) {
          return refusedTaskDecision(deciders, who);
        }
      }
      return tasks.command(cmd, words, targets, who);
    }
    StringBuilder reply = new StringBuilder();
    for (String ant : targets) {
      AntWorkflow w = stub(ant);
      switch (verb) {
        case AntVerb.Status s -> reply.append("```\n").append(StatusText.detail(w.status(), null, Instant.now())).append("```\n");
        case AntVerb.Stats s -> {
          AntStatus st = w.status();
          AntStats stats = w.stats();
          reply.append("```\n").append(StatusText.detail(st, stats, Instant.now())).append("```\n");
        }
        case AntVerb.Resume r when resumeRefused(ant, w, who) -> {
          AntStatus st = w.status();
          reply.append("⛔ ").append(ant).append(" is paused for ").append(st.pauseReason())
              .append(": with no operators configured, only an Administrator may resume it.\n");
        }
        case AntVerb.Send m when !Verbs.cutNote(m.text()).isEmpty() ->
            reply.append("📥 ").append(steering.send(AntIds.workflowId(colony, ant), m, actor(who))).append(".\n");
        default -> steering.send(AntIds.workflowId(colony, ant), verb, actor(who));
      }
    }
    return reply.isEmpty() ? null : reply.toString().strip();
  }

  /** Who may not resume {@code ant}: paused for a reason other than an operator's, no operators, no Administrator. */
  private boolean resumeRefused(String ant, AntWorkflow w, Speaker who) {
    if (!policy.operatorsOf(ant).isEmpty() || isAdmin(who)) {
      return false;
    }
    AntStatus s = w.status();
    return s.paused() && !"operator".equals(s.pauseReason());
  }

  /** The speaker as every surface records who steered an ant. */
  private Actor actor(Speaker who) {
    return new Actor(who == null ? null : who.name(), via);
  }

  /** Discord and Slack drop an interaction (slash command) not answered within 3 seconds. */
  static final long INTERACTION_BUDGET_MILLIS = 2300;

  /**
   * {@link #command}, answered within a chat's interaction budget on {@code work}: the reply, a
   * "sent" line when the command has none, or, when the worker is slow (restarting, say), a holding
   * answer; the command still goes through and its reply shows in the channel.
   */
  public String commandWithin(java.util.concurrent.ExecutorService work, String cmd, String arg, List<String> targets,
      Speaker who) throws InterruptedException {
    return commandWithin(work, cmd, arg, targets, who, null);
  }

  /**
   * The same; a task word's answer that comes after the budget (the board waits for a worker to
   * apply a change) goes to {@code late} (null: it is dropped; the ant's own posts say the rest).
   */
  public String commandWithin(java.util.concurrent.ExecutorService work, String cmd, String arg, List<String> targets,
      Speaker who, java.util.function.Consumer<String> late) throws InterruptedException {
    java.util.concurrent.Future<String> answer = work.submit(() -> command(cmd, arg, targets, who));
    try {
      String reply = answer.get(INTERACTION_BUDGET_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
      return reply != null ? reply : "✔️ " + prefix + verbs.word(cmd) + " sent to " + String.join(", ", targets) + ".";
    } catch (java.util.concurrent.TimeoutException e) {
      if (cmd.equals("task") || cmd.equals("tasks")) {
        if (late != null) {
          work.submit(() -> {
            try {
              String reply = answer.get();
              if (reply != null) {
                late.accept(reply);
              }
            } catch (Exception ex) {
              late.accept("The task board did not answer: " + ex.getMessage());
            }
            return null;
          });
        }
        return "⏳ " + prefix + cmd + " sent; the task board is slow to answer" + (late == null ? "." : ", its answer follows.");
      }
      return "⏳ " + prefix + verbs.word(cmd) + " sent; the ant's worker is slow to answer, so its reply will show in this channel.";
    } catch (java.util.concurrent.ExecutionException e) {
      return "The ant did not answer: " + e.getCause().getMessage();
    }
  }

  /** What became of a decision on a confirmation request. */
  public enum Decision {
    /** Approved or denied now. */
    DECIDED,
    /** The request was already decided (or timed out): nothing changed. */
    ALREADY_DECIDED,
    /** The speaker may not decide it. */
    REFUSED
  }

  /**
   * Approves or denies request {@code id} of {@code ant} for {@code who}, told apart as
   * {@code via} ("Discord", "Slack") in the ant's history. Only operators decide; with no
   * operators configured, only administrators.
   */
  public Decision decide(String ant, int id, boolean approve, Speaker who, String via) {
    if (who == null || !allowed(ant, who) || (policy.operatorsOf(ant).isEmpty() && !isAdmin(who))) {
      return Decision.REFUSED;
    }
    AntWorkflow w = stub(ant);
    boolean waiting = w.status().confirmations().stream().map(PendingConfirmation::id).anyMatch(i -> i == id);
    if (!waiting) {
      return Decision.ALREADY_DECIDED;
    }
    steering.send(AntIds.workflowId(colony, ant), verbs.decide(approve, id, null), new Actor(who.name(), via));
    return Decision.DECIDED;
  }

  /** The answer to someone who may not decide requests, or null when strangers are ignored. */
  public String refusedDecision(String ant, Speaker who) {
    if (!policy.replyToStrangers()) {
      return null;
    }
    return "⛔ " + (who == null ? "" : who.name() + ": ") + "only the colony's operators can approve or deny requests"
        + (policy.operatorsOf(ant).isEmpty() ? " (no operators are configured: Administrators only)." : ".");
  }

  // ---- tasks ----

  /**
   * Whether {@code who} may approve or re-queue a task in a channel where the ants {@code here}
   * listen: an operator of each, and, where one of them has no operators configured, an
   * Administrator (the rule of a confirmation request's decision).
   */
  public boolean mayDecide(List<String> here, Speaker who) {
    if (who == null || here.isEmpty() || !allowedAll(here, who)) {
      return false;
    }
    return isAdmin(who) || here.stream().noneMatch(a -> policy.operatorsOf(a).isEmpty());
  }

  /** The answer to someone who may not approve or re-queue tasks here; a sentence even for strangers (a button wants one). */
  public String refusedTaskDecision(List<String> here, Speaker who) {
    return "⛔ " + (who == null ? "" : ChatTasks.inert(who.name(), 64) + ": ")
        + "only the colony's operators can approve or re-queue tasks"
        + (here.stream().anyMatch(a -> policy.operatorsOf(a).isEmpty())
            ? " (no operators are configured: Administrators only)." : ".");
  }

  /** A task's Approve or Re-queue button, pressed by {@code who} under a post in a channel where {@code here} listen. */
  public ChatTasks.Answer pressTask(List<String> here, String taskId, boolean approve, String comment, Speaker who) {
    List<String> deciders = withOwner(here, taskId);
    if (!mayDecide(deciders, who)) {
      return new ChatTasks.Answer(ChatTasks.Outcome.FAILED, refusedTaskDecision(deciders, who), null);
    }
    if (!approve && (comment == null || comment.isBlank())) {
      return new ChatTasks.Answer(ChatTasks.Outcome.FAILED, "A re-queue needs a comment for the next session.", null);
    }
    return tasks.press(taskId, approve, comment, who);
  }

  /**
   * The ants whose operators decide on task {@code taskId} from this channel: the channel's, and
   * the ant that works (or worked) on it or is assigned it, so an operator of one ant cannot
   * approve another ant's work from its own channel.
   */
  private List<String> withOwner(List<String> here, String taskId) {
    String owner = tasks.ownerAnt(taskId);
    if (owner == null || here.contains(owner)) {
      return here;
    }
    List<String> all = new java.util.ArrayList<>(here);
    all.add(owner);
    return all;
  }

  /** Null when task {@code taskId} still waits for a human, else why a Re-queue has nothing to do. */
  public String taskNotWaiting(String taskId) {
    return tasks.notWaiting(taskId);
  }

  private boolean allowedAll(List<String> targets, Speaker who) {
    return targets.stream().allMatch(a -> allowed(a, who));
  }

  public boolean allowed(String ant, Speaker who) {
    List<String> ops = policy.operatorsOf(ant);
    if (ops.isEmpty()) {
      return true;
    }
    return who != null && ops.stream().anyMatch(who::is);
  }

  static boolean isAdmin(Speaker who) {
    return who != null && who.admin();
  }

  public String refused() {
    return policy.replyToStrangers() ? "⛔ Only the colony's operators can command these ants." : null;
  }

  public AntWorkflow stub(String ant) {
    return client.newWorkflowStub(AntWorkflow.class, AntIds.workflowId(colony, ant));
  }
}
