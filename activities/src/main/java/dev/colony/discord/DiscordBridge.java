package dev.colony.discord;

import dev.colony.ant.AntStats;
import dev.colony.ant.AntStatus;
import dev.colony.ant.AntWorkflow;
import dev.colony.mailbox.Mail;
import dev.colony.autonomy.Decide;
import dev.colony.autonomy.PendingConfirmation;
import dev.colony.chat.StatusText;
import dev.colony.spec.AntIds;
import dev.colony.spec.AntSpec;
import io.temporal.client.WorkflowClient;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.dv8tion.jda.api.JDA;
import net.dv8tion.jda.api.JDABuilder;
import net.dv8tion.jda.api.Permission;
import net.dv8tion.jda.api.entities.Guild;
import net.dv8tion.jda.api.entities.Member;
import net.dv8tion.jda.api.entities.Message;
import net.dv8tion.jda.api.entities.Role;
import net.dv8tion.jda.api.entities.channel.concrete.TextChannel;
import net.dv8tion.jda.api.events.interaction.command.SlashCommandInteractionEvent;
import net.dv8tion.jda.api.events.message.MessageReceivedEvent;
import net.dv8tion.jda.api.events.message.react.MessageReactionAddEvent;
import net.dv8tion.jda.api.hooks.ListenerAdapter;
import net.dv8tion.jda.api.interactions.commands.OptionType;
import net.dv8tion.jda.api.interactions.commands.build.Commands;
import net.dv8tion.jda.api.interactions.commands.build.SlashCommandData;
import net.dv8tion.jda.api.requests.GatewayIntent;
import net.dv8tion.jda.api.requests.RestConfig;
import net.dv8tion.jda.api.utils.Compression;
import net.dv8tion.jda.api.utils.ConcurrentSessionController;
import net.dv8tion.jda.api.utils.MemberCachePolicy;
import net.dv8tion.jda.api.utils.cache.CacheFlag;
import okhttp3.OkHttpClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inbound half of Discord: one gateway session (JDA) that maps each ant's channel to its
 * workflow. Text commands and slash commands are answered at once from the workflow (its
 * {@code status}/{@code stats} queries; pause, resume and clear are signals the workflow answers
 * in the channel itself); any other text is a work instruction ({@code message} signal); ✅/❌ on
 * a confirmation post decide it. Only operators are obeyed. Nothing the bridge receives can
 * crash it: every failure is one log line.
 */
public final class DiscordBridge extends ListenerAdapter implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DiscordBridge.class);
  static final String HELP = """
      **Colony commands** (in an ant's channel; with several ants in one channel, name the ant first: `worker /pause`)
      `/status` the ant's state · `/stats` or `/usage` sessions, turns, cost, tokens
      `/pause` or `/stop` pause after the current session · `/resume` or `/start` go on
      `/clear` drop queued instructions · `/urgent TEXT` interrupt the running session and start on TEXT now
      `/abort` drop the current task and the queue (the answer to a 🚨 escalation; `/resume` lets it go on)
      `/help` this help
      Anything else is a work instruction for the next session. React ✅ or ❌ to a ⚙️ request to approve or deny it.""";
  private static final List<String> COMMANDS = List.of("help", "status", "stats", "usage", "pause", "stop",
      "resume", "start", "clear", "urgent", "abort");
  private static final Pattern REQUEST = Pattern.compile("\\*\\*([A-Za-z0-9_.-]+)\\*\\* wants to use .*?request #(\\d+)",
      Pattern.DOTALL);
  private static final int MAX_ATTACHMENTS = 10;
  /** Discord drops an interaction not answered within 3 seconds. */
  private static final long SLASH_BUDGET_MILLIS = 2300;

  private final WorkflowClient client;
  private final String colony;
  private final List<AntSpec> ants;
  private final DiscordSettings settings;
  private final ExecutorService work = Executors.newVirtualThreadPerTaskExecutor();
  /** channel id -> ants posting there (filled once the gateway is ready) */
  private volatile Map<String, List<String>> antsByChannel = Map.of();
  private volatile JDA jda;

  public DiscordBridge(WorkflowClient client, String colony, List<AntSpec> ants, DiscordSettings settings) {
    this.client = client;
    this.colony = colony;
    this.ants = List.copyOf(ants);
    this.settings = settings;
  }

  /** Where Discord is: the real one, or (tests, proxies) another base URL and gateway. */
  public record Endpoints(String api, String gateway) {
    public static final Endpoints DISCORD = new Endpoints("https://discord.com/api/v10/", null);

    /** {@code COLONY_DISCORD_API_URL} and {@code COLONY_DISCORD_GATEWAY_URL}, else Discord's. */
    public static Endpoints fromEnvironment(Map<String, String> env) {
      String api = env.get("COLONY_DISCORD_API_URL");
      return api == null || api.isBlank() ? DISCORD : new Endpoints(api, env.get("COLONY_DISCORD_GATEWAY_URL"));
    }
  }

  /** Opens the gateway session and waits until the guild is known. */
  public void connect(String token, Endpoints endpoints, OkHttpClient http) throws InterruptedException {
    JDABuilder b = JDABuilder.createLight(token, EnumSet.of(GatewayIntent.GUILD_MESSAGES,
            GatewayIntent.MESSAGE_CONTENT, GatewayIntent.GUILD_MESSAGE_REACTIONS))
        .setHttpClient(http)
        .setMemberCachePolicy(MemberCachePolicy.NONE)
        .disableCache(EnumSet.allOf(CacheFlag.class))
        .setEnableShutdownHook(false)
        .addEventListeners(this);
    if (endpoints.gateway() != null) {
      String gateway = endpoints.gateway();
      b.setRestConfig(new RestConfig().setBaseUrl(endpoints.api()))
          .setCompression(Compression.NONE)
          .setSessionController(new ConcurrentSessionController() {
            @Override
            public String getGateway() {
              return gateway;
            }
          });
    }
    JDA j = b.build();
    j.awaitReady();
    this.jda = j;
    Guild guild = guild(j);
    if (guild == null) {
      log.warn("discord: the bot is not in the guild '{}'; invite it (see README, Discord)", settings.guild());
      return;
    }
    Map<String, List<String>> map = new LinkedHashMap<>();
    for (AntSpec a : ants) {
      TextChannel ch = channel(guild, a.discordChannel());
      if (ch == null) {
        log.warn("discord: ant {} names channel '{}', which is not in the guild", a.name(), a.discordChannel());
        continue;
      }
      map.computeIfAbsent(ch.getId(), k -> new ArrayList<>()).add(a.name());
    }
    antsByChannel = Map.copyOf(map);
    registerSlashCommands(guild);
    log.info("discord: bridge connected to '{}' for {} channel(s)", guild.getName(), map.size());
  }

  private Guild guild(JDA j) {
    if (DiscordRest.isSnowflake(settings.guild())) {
      return j.getGuildById(settings.guild());
    }
    return j.getGuildsByName(settings.guild(), true).stream().findFirst().orElse(null);
  }

  private static TextChannel channel(Guild g, String channel) {
    if (channel == null) {
      return null;
    }
    if (DiscordRest.isSnowflake(channel)) {
      return g.getTextChannelById(channel);
    }
    String name = channel.startsWith("#") ? channel.substring(1) : channel;
    return g.getTextChannelsByName(name, true).stream().findFirst().orElse(null);
  }

  private void registerSlashCommands(Guild guild) {
    List<SlashCommandData> cmds = new ArrayList<>();
    for (String c : COMMANDS) {
      SlashCommandData d = Commands.slash(c, describe(c));
      if (c.equals("urgent")) {
        d.addOption(OptionType.STRING, "text", "the instruction to start on now", true);
      }
      if (!c.equals("help")) {
        d.addOption(OptionType.STRING, "ant", "the ant, when several share this channel", false);
      }
      cmds.add(d);
    }
    guild.updateCommands().addCommands(cmds).queue(
        ok -> log.info("discord: {} slash commands registered", ok.size()),
        err -> log.warn("discord: slash commands not registered: {}", err.getMessage()));
  }

  private static String describe(String c) {
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

  // ---- messages ----

  @Override
  public void onMessageReceived(MessageReceivedEvent e) {
    if (!e.isFromGuild() || e.getAuthor().isBot() || e.isWebhookMessage()) {
      return; // ourselves, other bots, webhooks
    }
    List<String> here = antsByChannel.get(e.getChannel().getId());
    if (here == null) {
      return;
    }
    Message m = e.getMessage();
    String text = withAttachments(m);
    Member member = e.getMember();
    work.submit(() -> {
      try {
        String reply = onText(here, member, text);
        if (reply != null) {
          m.reply(reply).setAllowedMentions(List.of()).queue(ok -> { },
              err -> log.warn("discord: reply failed: {}", err.getMessage()));
        }
      } catch (RuntimeException ex) {
        log.warn("discord: message in #{} not handled: {}", e.getChannel().getName(), ex.getMessage());
      }
    });
  }

  private static String withAttachments(Message m) {
    StringBuilder sb = new StringBuilder(m.getContentRaw());
    int n = 0;
    for (Message.Attachment a : m.getAttachments()) {
      if (n++ == MAX_ATTACHMENTS) {
        sb.append("\n[").append(m.getAttachments().size() - MAX_ATTACHMENTS).append(" more attachments]");
        break;
      }
      sb.append("\n[attachment: ").append(a.getFileName()).append(", ").append(a.getSize()).append(" bytes, ")
          .append(a.getUrl()).append(']');
    }
    return sb.toString();
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

  // ---- reactions ----

  @Override
  public void onMessageReactionAdd(MessageReactionAddEvent e) {
    if (!e.isFromGuild() || e.getUserIdLong() == e.getJDA().getSelfUser().getIdLong()) {
      return;
    }
    String emoji = e.getEmoji().getName();
    if (!emoji.equals("✅") && !emoji.equals("❌")) {
      return;
    }
    Member member = e.getMember();
    if (member == null || member.getUser().isBot()) {
      return;
    }
    List<String> here = antsByChannel.get(e.getChannel().getId());
    if (here == null) {
      return;
    }
    try {
      e.retrieveMessage().queue(m -> work.submit(() -> {
        try {
          onReaction(here, m, member, emoji.equals("✅"));
        } catch (RuntimeException ex) {
          log.warn("discord: reaction in #{} not handled: {}", e.getChannel().getName(), ex.getMessage());
        }
      }), err -> log.warn("discord: reacted message not found: {}", err.getMessage()));
    } catch (RuntimeException ex) { // a missing permission, for one
      log.warn("discord: reaction in #{} not handled: {}", e.getChannel().getName(), ex.getMessage());
    }
  }

  private void onReaction(List<String> here, Message m, Member member, boolean approve) {
    if (m.getAuthor().getIdLong() != m.getJDA().getSelfUser().getIdLong()) {
      return;
    }
    Matcher r = REQUEST.matcher(m.getContentRaw());
    if (!r.find() || !here.contains(r.group(1))) {
      return;
    }
    String ant = r.group(1);
    int id = Integer.parseInt(r.group(2));
    if (!allowed(ant, member) || (settings.operatorsOf(ant).isEmpty() && !isAdmin(member))) {
      if (settings.replyToStrangers()) {
        m.reply("⛔ " + member.getUser().getName() + ": only the colony's operators can approve or deny requests"
            + (settings.operatorsOf(ant).isEmpty() ? " (no operators are configured: Administrators only)." : "."))
            .setAllowedMentions(List.of()).queue(ok -> { }, err -> { });
      }
      return;
    }
    AntWorkflow w = stub(ant);
    boolean waiting = w.status().confirmations().stream().map(PendingConfirmation::id).anyMatch(i -> i == id);
    if (!waiting) {
      m.reply("ℹ️ request #" + id + " was already decided; this reaction changes nothing.")
          .setAllowedMentions(List.of()).queue(ok -> { }, err -> { });
      return;
    }
    String who = member.getUser().getName();
    w.decide(new Decide(id, approve, who + " (Discord)", null));
    String outcome = (approve ? "\n✅ approved by " : "\n❌ denied by ") + who;
    String content = m.getContentRaw();
    if (content.length() + outcome.length() <= DiscordRest.MAX_MESSAGE) {
      m.editMessage(content + outcome).setAllowedMentions(List.of()).queue(ok -> { },
          err -> log.warn("discord: could not edit request #{}: {}", id, err.getMessage()));
    }
  }

  // ---- slash commands ----

  @Override
  public void onSlashCommandInteraction(SlashCommandInteractionEvent e) {
    List<String> here = antsByChannel.get(e.getChannel().getId());
    String cmd = e.getName();
    if (here == null) {
      e.reply("No ant listens in this channel.").setEphemeral(true).queue(ok -> { }, err -> { });
      return;
    }
    String named = e.getOption("ant") == null ? null : e.getOption("ant").getAsString();
    List<String> targets = named != null && here.contains(named) ? List.of(named) : here;
    // Discord wants an answer within 3 seconds. Queries answer in milliseconds; a worker that is
    // slower (restarting, say) gets a holding answer, and the command still goes through.
    String arg = e.getOption("text") == null ? "" : e.getOption("text").getAsString();
    java.util.concurrent.Future<String> answer = work.submit(() -> command(cmd, arg, targets, e.getMember()));
    String reply;
    try {
      reply = answer.get(SLASH_BUDGET_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException ex) {
      reply = "⏳ /" + cmd + " sent; the ant's worker is slow to answer, so its reply will show in this channel.";
    } catch (java.util.concurrent.ExecutionException ex) {
      reply = "The ant did not answer: " + ex.getCause().getMessage();
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
      return;
    }
    e.reply(reply == null ? "✔️ /" + cmd + " sent to " + String.join(", ", targets) + "." : reply)
        .setAllowedMentions(List.of()).queue(ok -> { }, err -> log.warn("discord: slash reply failed: {}", err.getMessage()));
  }

  // ---- who may do what ----

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

  private static boolean isAdmin(Member member) {
    return member != null && member.hasPermission(Permission.ADMINISTRATOR);
  }

  private String refused() {
    return settings.replyToStrangers() ? "⛔ Only the colony's operators can command these ants." : null;
  }

  private AntWorkflow stub(String ant) {
    return client.newWorkflowStub(AntWorkflow.class, AntIds.workflowId(colony, ant));
  }

  public boolean connected() {
    return jda != null && jda.getStatus() == JDA.Status.CONNECTED;
  }

  @Override
  public void close() {
    JDA j = jda;
    if (j != null) {
      j.shutdownNow();
    }
    work.shutdownNow();
  }
}
