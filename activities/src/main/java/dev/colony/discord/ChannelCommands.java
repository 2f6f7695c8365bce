package dev.colony.discord;

import dev.colony.ant.AntStats;
import dev.colony.ant.AntStatus;
import dev.colony.ant.AntWorkflow;
import dev.colony.chat.StatusText;
import dev.colony.mailbox.Mail;
import dev.colony.spec.AntIds;
import io.temporal.client.WorkflowClient;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import net.dv8tion.jda.api.Permission;
import net.dv8tion.jda.api.entities.Member;
import net.dv8tion.jda.api.entities.Role;

/**
 * What a human's words in an ant's channel do: a command answered from the workflow, or a work
 * instruction; and who may give them (the operators, by user id, role id or role name). The
 * gateway side, {@link DiscordBridge}, hands each message, reaction and slash command here.
 */
final class ChannelCommands {
  static final String HELP = """
      **Colony commands** (in an ant's channel; with several ants in one channel, name the ant first: `worker /pause`)
      `/status` the ant's state · `/stats` or `/usage` sessions, turns, cost, tokens
      `/pause` or `/stop` pause after the current session · `/resume` or `/start` go on
      `/clear` drop queued instructions · `/urgent TEXT` interrupt the running session and start on TEXT now
      `/abort` drop the current task and the queue (the answer to a 🚨 escalation; `/resume` lets it go on)
      `/help` this help
      Anything else is a work instruction for the next session. React ✅ or ❌ to a ⚙️ request to approve or deny it.""";
  static final List<String> COMMANDS = List.of("help", "status", "stats", "usage", "pause", "stop",
      "resume", "start", "clear", "urgent", "abort");

  private final WorkflowClient client;
  private final String colony;
  private final DiscordSettings settings;

  ChannelCommands(WorkflowClient client, String colony, DiscordSettings settings) {
    this.client = client;
    this.colony = colony;
    this.settings = settings;
  }

  static String describe(String c) {
    return switch (c) {
      case "help" -> "What the colony's commands do";
      case "status" -> "The ant's state, queue and next wake-up";
      case "stats", "usage" -> "Sessions, turns, cost and tokens";
      case "pause", "stop" -> "Pause the ant after its current session";
      case "resume", "start" -> "Resume a paused ant";
      case "urgent" -> "Interrupt the running session and start on this instruction now";
      case "abort" -> "Drop the current task and the queue; an escalated ant goes on";
      default -> "Drop the ant's queued instructions";
    };
  }

  /** Handles one line a human wrote in a channel of {@code here}; returns the reply, or null. */
  String onText(List<String> here, Member member, String text) {
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
    if (t.startsWith("/")) {
      String[] parts = t.substring(1).split("\\s+", 2);
      String cmd = parts[0].toLowerCase(Locale.ROOT);
      return command(cmd, parts.length > 1 ? parts[1].strip() : "", targets, member);
    }
    if (!allowedAll(targets, member)) {
      return refused();
    }
    for (String ant : targets) {
      stub(ant).message(Mail.of(t));
    }
    return null; // each ant answers 📥 (and ▶️ when it was paused) in the channel
  }

  String command(String cmd, String arg, List<String> targets, Member member) {
    if (!COMMANDS.contains(cmd)) {
      return "Unknown command `/" + cmd.replaceAll("[^A-Za-z0-9_-]", "") + "`. Run `/help` for the list.";
    }
    if (cmd.equals("help")) {
      return HELP;
    }
    if (!allowedAll(targets, member)) {
      return refused();
    }
    if (cmd.equals("urgent") && arg.isBlank()) {
      return "`/urgent` needs the instruction: `/urgent stop and fix the failing build`.";
    }
    StringBuilder reply = new StringBuilder();
    for (String ant : targets) {
      AntWorkflow w = stub(ant);
      switch (cmd) {
        case "status" -> reply.append("```\n").append(StatusText.detail(w.status(), null, Instant.now())).append("```\n");
        case "stats", "usage" -> {
          AntStatus s = w.status();
          AntStats st = w.stats();
          reply.append("```\n").append(StatusText.detail(s, st, Instant.now())).append("```\n");
        }
        case "pause", "stop" -> w.pause();
        case "resume", "start" -> {
          AntStatus s = w.status();
          if (s.paused() && !"operator".equals(s.pauseReason()) && settings.operatorsOf(ant).isEmpty()
              && !isAdmin(member)) {
            reply.append("⛔ ").append(ant).append(" is paused for ").append(s.pauseReason())
                .append(": with no operators configured, only an Administrator may resume it.\n");
          } else {
            w.resume();
          }
        }
        case "clear" -> w.clear();
        case "abort" -> w.abort();
        case "urgent" -> w.message(Mail.urgent(arg));
        default -> { }
      }
    }
    return reply.isEmpty() ? null : reply.toString().strip();
  }

  private boolean allowedAll(List<String> targets, Member member) {
    return targets.stream().allMatch(a -> allowed(a, member));
  }

  boolean allowed(String ant, Member member) {
    List<String> ops = settings.operatorsOf(ant);
    if (ops.isEmpty()) {
      return true;
    }
    if (member == null) {
      return false;
    }
    Set<String> roleIds = new java.util.HashSet<>();
    Set<String> roleNames = new java.util.HashSet<>();
    for (Role r : member.getRoles()) {
      roleIds.add(r.getId());
      roleNames.add(r.getName().toLowerCase(Locale.ROOT));
    }
    for (String op : ops) {
      if (op.equals(member.getId()) || roleIds.contains(op) || roleNames.contains(op.toLowerCase(Locale.ROOT))) {
        return true;
      }
    }
    return false;
  }

  static boolean isAdmin(Member member) {
    return member != null && member.hasPermission(Permission.ADMINISTRATOR);
  }

  String refused() {
    return settings.replyToStrangers() ? "⛔ Only the colony's operators can command these ants." : null;
  }

  AntWorkflow stub(String ant) {
    return client.newWorkflowStub(AntWorkflow.class, AntIds.workflowId(colony, ant));
  }

}
