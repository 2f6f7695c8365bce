package dev.colony.discord;

import dev.colony.board.TaskBoard;
import dev.colony.board.TemporalTaskBoard;
import dev.colony.chat.impl.ChannelCommands;
import dev.colony.chat.impl.ChatTasks;
import dev.colony.chat.impl.ChatText;
import dev.colony.chat.impl.LeasedConnection;
import dev.colony.chat.impl.Speaker;
import dev.colony.spec.AntSpec;
import dev.colony.task.TaskLimits;
import dev.colony.task.TaskSettings;
import io.temporal.client.WorkflowClient;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import net.dv8tion.jda.api.JDA;
import net.dv8tion.jda.api.JDABuilder;
import net.dv8tion.jda.api.entities.Guild;
import net.dv8tion.jda.api.entities.Member;
import net.dv8tion.jda.api.entities.Message;
import net.dv8tion.jda.api.components.label.Label;
import net.dv8tion.jda.api.components.textinput.TextInput;
import net.dv8tion.jda.api.components.textinput.TextInputStyle;
import net.dv8tion.jda.api.entities.channel.concrete.TextChannel;
import net.dv8tion.jda.api.entities.channel.middleman.MessageChannel;
import net.dv8tion.jda.api.events.interaction.ModalInteractionEvent;
import net.dv8tion.jda.api.events.interaction.component.ButtonInteractionEvent;
import net.dv8tion.jda.api.interactions.InteractionHook;
import net.dv8tion.jda.api.modals.Modal;
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
 * a confirmation post decide it; {@code /task} and {@code /tasks} drive the task board, and the
 * Approve and Re-queue buttons under a task's post approve or re-queue it (Re-queue asks for its
 * comment in a modal). Only operators are obeyed. Nothing the bridge receives can
 * crash it: every failure is one log line.
 */
public final class DiscordBridge extends ListenerAdapter implements LeasedConnection.Connection {
  private static final Logger log = LoggerFactory.getLogger(DiscordBridge.class);

  private final WorkflowClient client;
  private final String colony;
  private final List<AntSpec> ants;
  private final DiscordSettings settings;
  private final ChannelCommands commands;
  private final ExecutorService work = Executors.newVirtualThreadPerTaskExecutor();
  /** channel id -> ants posting there (filled once the gateway is ready) */
  private volatile Map<String, List<String>> antsByChannel = Map.of();
  private volatile JDA jda;

  public DiscordBridge(WorkflowClient client, String colony, List<AntSpec> ants, DiscordSettings settings) {
    this(client, colony, ants, settings, new TemporalTaskBoard(client, colony, TaskSettings.defaults()));
  }

  /** @param board the colony's task board: {@code /task}, {@code /tasks} and the task buttons */
  public DiscordBridge(WorkflowClient client, String colony, List<AntSpec> ants, DiscordSettings settings,
      TaskBoard board) {
    this.client = client;
    this.colony = colony;
    this.ants = List.copyOf(ants);
    this.settings = settings;
    this.commands = new ChannelCommands(client, colony, settings, "/",
        "React ✅ or ❌ to a ⚙️ request to approve or deny it; press Approve or Re-queue under a task's post.",
        board, "Discord");
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
      log.warn("discord: the bot is not in the guild '{}'; invite it (see docs/integrations.md, Discord)", settings.guild());
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
    for (String c : ChannelCommands.COMMANDS) {
      SlashCommandData d = Commands.slash(c, ChannelCommands.describe(c));
      if (c.equals("urgent")) {
        d.addOption(OptionType.STRING, "text", "the instruction to start on now", true);
      }
      if (c.equals("task")) {
        d.addOption(OptionType.STRING, "text", "add TITLE [| BODY], show ID, approve ID, requeue ID COMMENT, ...", true);
      }
      if (c.equals("tasks")) {
        d.addOption(OptionType.STRING, "state", "only this column: backlog, todo, in_progress, in_review, done, blocked", false);
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
    Speaker who = speaker(e.getMember());
    work.submit(() -> {
      try {
        String reply = commands.onText(here, who, text);
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
    return ChatText.withAttachments(m.getContentRaw(), m.getAttachments().stream()
        .map(a -> new ChatText.Attachment(a.getFileName(), a.getSize(), a.getUrl())).toList());
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
    dev.colony.chat.OperatorMessages.RequestRef r = dev.colony.chat.OperatorMessages.requestIn(
        stripMentions(m.getContentRaw()));
    if (r == null || !here.contains(r.ant())) {
      return;
    }
    String ant = r.ant();
    int id = r.id();
    Speaker who = speaker(member);
    switch (commands.decide(ant, id, approve, who, "Discord")) {
      case REFUSED -> {
        String refusal = commands.refusedDecision(ant, who);
        if (refusal != null) {
          m.reply(refusal).setAllowedMentions(List.of()).queue(ok -> { }, err -> { });
        }
        return;
      }
      case ALREADY_DECIDED -> {
        m.reply("ℹ️ request #" + id + " was already decided; this reaction changes nothing.")
            .setAllowedMentions(List.of()).queue(ok -> { }, err -> { });
        return;
      }
      case DECIDED -> { }
    }
    String outcome = (approve ? "\n✅ approved by " : "\n❌ denied by ") + who.name();
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
    String arg = e.getOption("text") != null ? e.getOption("text").getAsString()
        : e.getOption("state") != null ? e.getOption("state").getAsString() : "";
    String reply;
    MessageChannel channel = e.getChannel();
    try {
      reply = commands.commandWithin(work, cmd, arg, targets, speaker(e.getMember()),
          late -> channel.sendMessage(cut(late)).setAllowedMentions(List.of()).queue(ok -> { },
              err -> log.warn("discord: late task answer not posted: {}", err.getMessage())));
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
      return;
    }
    e.reply(cut(reply)).setAllowedMentions(List.of()).queue(ok -> { }, err -> log.warn("discord: slash reply failed: {}", err.getMessage()));
  }

  /** A reply within one message. */
  private static String cut(String reply) {
    return reply.length() <= DiscordRest.MAX_MESSAGE ? reply : reply.substring(0, DiscordRest.MAX_MESSAGE - 1) + "…";
  }

  // ---- a task's buttons ----

  /** The custom id of the Re-queue modal: the prefix, then the task's id. */
  static final String REQUEUE_MODAL = DiscordRest.TASK_BUTTON + "_requeue:";
  /** How long a press waits to learn whether the task still waits, before a Re-queue opens its modal anyway. */
  private static final long WAITING_CHECK_MILLIS = 1500;

  @Override
  public void onButtonInteraction(ButtonInteractionEvent e) {
    String[] id = e.getComponentId().split(":", 3);
    if (id.length != 3 || !id[0].equals(DiscordRest.TASK_BUTTON)) {
      return;
    }
    boolean approve = id[1].equals("approve");
    String taskId = id[2];
    List<String> here = antsByChannel.get(e.getChannel().getId());
    Speaker who = speaker(e.getMember());
    if (here == null || who == null) {
      e.reply("No ant listens in this channel.").setEphemeral(true).queue(ok -> { }, err -> { });
      return;
    }
    if (!commands.mayDecide(here, who)) {
      e.reply(commands.refusedTaskDecision(here, who)).setEphemeral(true).setAllowedMentions(List.of())
          .queue(ok -> { }, err -> { });
      return;
    }
    Message m = e.getMessage();
    if (!approve) {
      // The comment is required: a modal asks for it, unless the task no longer waits (pressed twice).
      String settled = null;
      try {
        settled = work.submit(() -> commands.taskNotWaiting(taskId))
            .get(WAITING_CHECK_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException ex) {
        // the board is slow: ask anyway, the press itself is safe twice
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        return;
      }
      if (settled != null) {
        e.reply(settled).setEphemeral(true).setAllowedMentions(List.of()).queue(ok -> { }, err -> { });
        return;
      }
      TextInput comment = TextInput.create("comment", TextInputStyle.PARAGRAPH).setRequired(true)
          .setRequiredRange(1, TaskLimits.COMMENT).setPlaceholder("What the next session should do differently").build();
      String title = "Re-queue task " + taskId;
      e.replyModal(Modal.create(REQUEUE_MODAL + taskId, title.length() > Modal.MAX_TITLE_LENGTH
              ? title.substring(0, Modal.MAX_TITLE_LENGTH) : title)
          .addComponents(Label.of("Comment for the next session", comment)).build())
          .queue(ok -> { }, err -> log.warn("discord: re-queue form not shown: {}", err.getMessage()));
      return;
    }
    e.deferReply(true).queue(ok -> { }, err -> { });
    work.submit(() -> answerPress(e.getHook(), m, here, taskId, true, null, who));
  }

  @Override
  public void onModalInteraction(ModalInteractionEvent e) {
    if (!e.getModalId().startsWith(REQUEUE_MODAL)) {
      return;
    }
    String taskId = e.getModalId().substring(REQUEUE_MODAL.length());
    List<String> here = antsByChannel.get(e.getChannel().getId());
    Speaker who = speaker(e.getMember());
    if (here == null || who == null) {
      e.reply("No ant listens in this channel.").setEphemeral(true).queue(ok -> { }, err -> { });
      return;
    }
    String comment = e.getValue("comment") == null ? "" : e.getValue("comment").getAsString();
    Message m = e.getMessage();
    e.deferReply(true).queue(ok -> { }, err -> { });
    work.submit(() -> answerPress(e.getHook(), m, here, taskId, false, comment, who));
  }

  /** Approves or re-queues (operators were checked again), answers the presser alone, and shows the outcome under the post. */
  private void answerPress(InteractionHook hook, Message m, List<String> here, String taskId, boolean approve,
      String comment, Speaker who) {
    try {
      ChatTasks.Answer a = commands.pressTask(here, taskId, approve, comment, who);
      hook.sendMessage(cut(a.text())).setEphemeral(true).setAllowedMentions(List.of())
          .queue(ok -> { }, err -> log.warn("discord: answer to a task button failed: {}", err.getMessage()));
      if (m != null && a.outcome() != ChatTasks.Outcome.FAILED) {
        String content = m.getContentRaw();
        String shown = a.line() == null || content.length() + a.line().length() + 1 > DiscordRest.MAX_MESSAGE ? content
            : content + "\n" + a.line();
        // Through the channel, not the interaction's webhook: the post is the bot's own, not the interaction's.
        m.getChannel().editMessageById(m.getId(), shown).setComponents(List.of()).setAllowedMentions(List.of()).queue(ok -> { },
            err -> log.warn("discord: could not edit the post of task {}: {}", taskId, err.getMessage()));
      }
    } catch (RuntimeException ex) {
      log.warn("discord: task button on {} not handled: {}", taskId, ex.getMessage());
    }
  }

  /** A post's text without the mentions the sink put before it. */
  private static String stripMentions(String content) {
    return content.replaceFirst("^(<@[&!]?\\d+>\\s*)+", "");
  }

  /** A guild member as a {@link Speaker}: roles are the groups, Administrator the admin bit. */
  static Speaker speaker(Member m) {
    if (m == null) {
      return null;
    }
    java.util.Set<String> ids = new java.util.HashSet<>();
    java.util.Set<String> names = new java.util.HashSet<>();
    for (net.dv8tion.jda.api.entities.Role r : m.getRoles()) {
      ids.add(r.getId());
      names.add(r.getName());
    }
    return new Speaker(m.getId(), m.getUser().getName(), ids, names,
        m.hasPermission(net.dv8tion.jda.api.Permission.ADMINISTRATOR));
  }

  @Override
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
