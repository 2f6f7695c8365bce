package dev.colony.slack;

import com.slack.api.app_backend.interactive_components.payload.BlockActionPayload;
import com.slack.api.bolt.App;
import com.slack.api.bolt.AppConfig;
import com.slack.api.bolt.socket_mode.SocketModeApp;
import com.slack.api.model.Message;
import com.slack.api.model.event.MessageBotEvent;
import com.slack.api.model.event.MessageChangedEvent;
import com.slack.api.model.event.MessageDeletedEvent;
import com.slack.api.model.event.MessageEvent;
import com.slack.api.model.event.MessageFileShareEvent;
import com.slack.api.model.event.ReactionAddedEvent;
import com.slack.api.socket_mode.SocketModeClient;
import dev.colony.chat.OperatorMessages;
import dev.colony.board.TaskBoard;
import dev.colony.board.TemporalTaskBoard;
import dev.colony.chat.impl.ChannelCommands;
import dev.colony.chat.impl.ChatTasks;
import dev.colony.chat.impl.ChatText;
import dev.colony.chat.impl.LeasedConnection;
import dev.colony.chat.impl.Speaker;
import dev.colony.task.TaskSettings;
import io.temporal.client.WorkflowClient;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inbound half of Slack: one Socket Mode connection (Bolt) that maps each ant's channel to its
 * workflow. Messages are work instructions, or commands when they start with {@code !} (Slack's
 * clients take a leading {@code /} for a slash command); the {@code /colony} slash command takes
 * the same commands; the Approve and Deny buttons of a request, or a ✅ / ❌ reaction on it,
 * decide it; the Approve and Re-queue buttons under a task's post approve or re-queue it
 * (Re-queue asks for its comment in a modal, {@code views.open}). Only operators are obeyed. Nothing the bridge receives can crash it: every failure
 * is one log line, and every event is acknowledged.
 */
public final class SlackBridge implements LeasedConnection.Connection {
  private static final Logger log = LoggerFactory.getLogger(SlackBridge.class);
  public static final String SLASH_COMMAND = "/colony";
  private static final Set<String> APPROVE = Set.of("white_check_mark", "heavy_check_mark", "ballot_box_with_check");
  private static final Set<String> DENY = Set.of("x", "negative_squared_cross_mark", "heavy_multiplication_x");

  private final WorkflowClient client;
  private final String colony;
  private final SlackSettings settings;
  private final SlackApi api;
  private final String botToken;
  private final ChannelCommands commands;
  private final ExecutorService work = Executors.newVirtualThreadPerTaskExecutor();
  /** channel id -> ants listening there (filled on connect) */
  private volatile Map<String, List<String>> antsByChannel = Map.of();
  private volatile SlackApi.Identity me;
  private volatile SocketModeApp socket;

  public SlackBridge(WorkflowClient client, String colony, SlackSettings settings, SlackApi api, String botToken) {
    this(client, colony, settings, api, botToken, new TemporalTaskBoard(client, colony, TaskSettings.defaults()));
  }

  /** @param board the colony's task board: {@code task}, {@code tasks} and the task buttons */
  public SlackBridge(WorkflowClient client, String colony, SlackSettings settings, SlackApi api, String botToken,
      TaskBoard board) {
    this.client = client;
    this.colony = colony;
    this.settings = settings;
    this.api = api;
    this.botToken = botToken;
    this.commands = new ChannelCommands(client, colony, settings, SLASH_COMMAND + " ",
        "Press Approve or Deny on a ⚙️ request (or react ✅ / ❌) to decide it, Approve or Re-queue under a task's "
            + "post. Commands also work as messages starting with '!': `!pause`, `!tasks`.",
        board, "Slack");
  }

  /**
   * Checks the bot token, finds the ants' channels and opens the Socket Mode connection with the
   * app-level token. Throws, with one clear line, when Slack refuses either token.
   */
  public void connect(String appToken) throws Exception {
    me = api.whoAmI();
    Map<String, List<String>> map = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : settings.channels().entrySet()) {
      try {
        map.computeIfAbsent(api.channelId(e.getValue()), k -> new ArrayList<>()).add(e.getKey());
      } catch (SlackApi.SlackException ex) {
        api.reportOnce(log, "channel/" + e.getKey() + "/" + ex.error,
            "ant " + e.getKey() + " names channel '" + e.getValue() + "': " + ex.getMessage());
      }
    }
    antsByChannel = Map.copyOf(map);
    // Bolt checks the bot token (auth.test) before every event unless told to cache the answer.
    App app = new App(AppConfig.builder().singleTeamBotToken(botToken).slack(api.sdk())
        .authTestCacheEnabled(true).subtypedMessageEventsAutoAckEnabled(true).build());
    app.event(MessageEvent.class, (req, ctx) -> {
      MessageEvent m = req.getEvent();
      onMessage(m.getChannel(), m.getUser(), m.getBotId(), m.getText(), List.of());
      return ctx.ack();
    });
    app.event(MessageFileShareEvent.class, (req, ctx) -> {
      MessageFileShareEvent m = req.getEvent();
      onMessage(m.getChannel(), m.getUser(), null, m.getText(), m.getFiles() == null ? List.of() : m.getFiles());
      return ctx.ack();
    });
    app.event(MessageChangedEvent.class, (req, ctx) -> ctx.ack());
    app.event(MessageDeletedEvent.class, (req, ctx) -> ctx.ack());
    app.event(MessageBotEvent.class, (req, ctx) -> ctx.ack());
    app.event(ReactionAddedEvent.class, (req, ctx) -> {
      ReactionAddedEvent r = req.getEvent();
      if (r.getItem() != null && "message".equals(r.getItem().getType())) {
        Boolean approve = APPROVE.contains(r.getReaction()) ? Boolean.TRUE : DENY.contains(r.getReaction()) ? Boolean.FALSE : null;
        if (approve != null) {
          work.submit(() -> onReaction(r.getItem().getChannel(), r.getItem().getTs(), r.getUser(), approve));
        }
      }
      return ctx.ack();
    });
    app.command(SLASH_COMMAND, (req, ctx) -> {
      var p = req.getPayload();
      String reply = onSlash(p.getChannelId(), p.getUserId(), p.getText());
      return ctx.ack(r -> r.responseType("ephemeral").text(reply));
    });
    app.blockAction(SlackText.APPROVE, (req, ctx) -> {
      onButton(req.getPayload(), true);
      return ctx.ack();
    });
    app.blockAction(SlackText.DENY, (req, ctx) -> {
      onButton(req.getPayload(), false);
      return ctx.ack();
    });
    app.blockAction(SlackText.TASK_APPROVE, (req, ctx) -> {
      onTaskButton(req.getPayload(), true);
      return ctx.ack();
    });
    app.blockAction(SlackText.TASK_REQUEUE, (req, ctx) -> {
      onTaskButton(req.getPayload(), false);
      return ctx.ack();
    });
    app.viewSubmission(SlackText.REQUEUE_VIEW, (req, ctx) -> {
      var p = req.getPayload();
      onRequeueSubmitted(p.getUser() == null ? null : p.getUser().getId(), p.getView());
      return ctx.ack();
    });
    // An event Bolt could not handle is one log line (Bolt's own handler logs a stack trace) and is
    // not acknowledged, so Slack delivers it again.
    SocketModeApp s = null;
    try {
      s = new SocketModeApp(appToken, SocketModeClient.Backend.JavaWebSocket, ctx -> {
        log.warn("slack: an event was not handled (Slack sends it again): {}", ctx.getException().getMessage());
        return null;
      }, app);
      s.startAsync();
    } catch (Exception e) {
      if (s != null) {
        try {
          s.close(); // its threads, on every failed attempt otherwise
        } catch (Exception ignored) {
          // closing what never connected
        }
      }
      throw new IllegalStateException(appTokenProblem(String.valueOf(e.getMessage())));
    }
    socket = s;
    log.info("slack: connected as {} in {} for {} channel(s)", me.userId(), me.team(), map.size());
  }

  /** What the SDK says when Socket Mode cannot start, as one line that says what to fix. */
  static String appTokenProblem(String sdkMessage) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("error: ([a-z_]+)").matcher(sdkMessage);
    String error = m.find() ? m.group(1) : null;
    if (error == null) {
      return "apps.connections.open: cannot open the Socket Mode connection (" + sdkMessage + ")";
    }
    return "apps.connections.open: " + switch (error) {
      case "invalid_auth", "not_authed", "token_revoked", "token_expired" -> "the app-level token was refused (" + error
          + "): check integrations.slack.app_token (xapp-..., with the connections:write scope)";
      case "not_allowed_token_type" -> "integrations.slack.app_token is not an app-level token (xapp-...; a bot token "
          + "goes in bot_token)";
      case "missing_scope" -> "the app-level token lacks connections:write (Basic Information, App-Level Tokens)";
      default -> "Slack refused to open a Socket Mode connection (" + error + "): is Socket Mode on for the app?";
    };
  }

  // ---- messages ----

  void onMessage(String channel, String user, String botId, String text, List<com.slack.api.model.File> files) {
    if (user == null || botId != null || (me != null && user.equals(me.userId()))) {
      return; // ourselves, other bots, integrations
    }
    List<String> here = antsByChannel.get(channel);
    if (here == null) {
      return;
    }
    String full = ChatText.withAttachments(unescape(text == null ? "" : text), files.stream()
        .map(f -> new ChatText.Attachment(f.getName(), f.getSize() == null ? 0 : f.getSize(), f.getUrlPrivate())).toList());
    work.submit(() -> {
      try {
        String reply = commands.onText(here, speaker(user), full, "!", "/");
        if (reply != null) {
          api.post(channel, SlackText.mrkdwn(reply), null, "reply/" + channel + "/" + System.nanoTime(), null);
        }
      } catch (Exception e) {
        log.warn("slack: message in {} not handled: {}", channel, e.getMessage());
      }
    });
  }

  /** Slack escapes &, < and > in message text; a work instruction gets them back. */
  static String unescape(String text) {
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
  }

  // ---- the slash command ----

  String onSlash(String channel, String user, String text) {
    List<String> here = antsByChannel.get(channel);
    if (here == null) {
      return "No ant listens in this channel.";
    }
    String t = text == null ? "" : unescape(text).strip();
    String[] words = t.split("\\s+", 3);
    String cmd = words[0].isEmpty() ? "help" : words[0].toLowerCase(java.util.Locale.ROOT);
    List<String> targets = here;
    String arg = words.length > 1 ? t.substring(words[0].length()).strip() : "";
    if (words.length > 1 && here.contains(words[1])) {
      targets = List.of(words[1]);
      arg = words.length > 2 ? words[2].strip() : "";
    }
    try {
      return SlackText.mrkdwn(commands.commandWithin(work, cmd, arg, targets, speaker(user), late -> {
        try {
          api.ephemeral(channel, user, SlackText.mrkdwn(late));
        } catch (Exception e) {
          log.warn("slack: late task answer not posted: {}", e.getMessage());
        }
      }));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  // ---- approvals ----

  private void onButton(BlockActionPayload p, boolean approve) {
    if (p.getActions() == null || p.getActions().isEmpty() || p.getUser() == null || p.getChannel() == null
        || p.getMessage() == null) {
      return;
    }
    OperatorMessages.RequestRef r = SlackText.parseValue(p.getActions().get(0).getValue());
    String channel = p.getChannel().getId();
    if (r != null) {
      work.submit(() -> decide(channel, p.getMessage().getTs(), p.getMessage().getText(), r, p.getUser().getId(), approve));
    }
  }

  private void onReaction(String channel, String ts, String user, boolean approve) {
    try {
      if (me != null && me.userId().equals(user)) {
        return;
      }
      Message m = api.message(channel, ts);
      if (m == null || me == null || !(me.botId() != null && me.botId().equals(m.getBotId())
          || me.userId().equals(m.getUser()))) {
        return; // not a post of ours
      }
      OperatorMessages.RequestRef r = m.getMetadata() == null || m.getMetadata().getEventPayload() == null ? null
          : SlackText.parseValue(String.valueOf(m.getMetadata().getEventPayload().get("request")));
      if (r != null) {
        decide(channel, ts, m.getText(), r, user, approve);
      }
    } catch (Exception e) {
      log.warn("slack: reaction in {} not handled: {}", channel, e.getMessage());
    }
  }

  private void decide(String channel, String ts, String text, OperatorMessages.RequestRef r, String user, boolean approve) {
    try {
      List<String> here = antsByChannel.get(channel);
      if (here == null || !here.contains(r.ant())) {
        return;
      }
      Speaker who = speaker(user);
      switch (commands.decide(r.ant(), r.id(), approve, who, "Slack")) {
        case REFUSED -> {
          String refusal = commands.refusedDecision(r.ant(), who);
          if (refusal != null) {
            api.ephemeral(channel, user, refusal);
          }
        }
        case ALREADY_DECIDED -> api.ephemeral(channel, user, "ℹ️ request #" + r.id() + " was already decided; this "
            + "changes nothing.");
        case DECIDED -> api.update(channel, ts, text == null ? "" : text,
            SlackText.decidedBlocks(text == null ? "" : text, approve, who.name()));
      }
    } catch (Exception e) {
      log.warn("slack: decision on request #{} of {} not handled: {}", r.id(), r.ant(), e.getMessage());
    }
  }

  // ---- a task's buttons ----

  /** How long a Re-queue press waits to learn whether the task still waits (the modal's trigger lasts 3 s). */
  private static final long WAITING_CHECK_MILLIS = 1500;
  private static final java.util.regex.Pattern TS = java.util.regex.Pattern.compile("\\d{1,12}\\.\\d{1,9}");

  /**
   * Approve: done on the worker pool, answered to the presser alone. Re-queue: a modal asks for
   * the comment (opened at once, while the press's trigger is valid), unless the presser may not
   * decide or the task no longer waits.
   */
  void onTaskButton(BlockActionPayload p, boolean approve) {
    if (p.getActions() == null || p.getActions().isEmpty() || p.getUser() == null || p.getChannel() == null
        || p.getMessage() == null) {
      return;
    }
    String channel = p.getChannel().getId();
    String user = p.getUser().getId();
    String taskId = p.getActions().get(0).getValue();
    String ts = p.getMessage().getTs();
    String text = p.getMessage().getText();
    List<String> here = antsByChannel.get(channel);
    if (here == null || taskId == null || ts == null) {
      return;
    }
    if (approve) {
      work.submit(() -> answerPress(channel, ts, text, here, taskId, true, null, user));
      return;
    }
    try {
      Speaker who = speaker(user);
      if (!commands.mayDecide(here, who)) {
        work.submit(() -> tell(channel, user, commands.refusedTaskDecision(here, who)));
        return;
      }
      String settled = null;
      try {
        settled = work.submit(() -> commands.taskNotWaiting(taskId))
            .get(WAITING_CHECK_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
        // the board is slow: ask anyway, the re-queue itself is safe twice
      }
      if (settled != null) {
        String why = settled;
        work.submit(() -> tell(channel, user, why));
        return;
      }
      api.openView(p.getTriggerId(), SlackText.requeueView(taskId, channel + " " + ts + " " + taskId));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      log.warn("slack: re-queue of task {} not handled: {}", taskId, e.getMessage());
    }
  }

  /** The Re-queue modal's comment: where the post is comes back in its private metadata, checked like a press. */
  void onRequeueSubmitted(String user, com.slack.api.model.view.View view) {
    if (user == null || view == null || view.getPrivateMetadata() == null || view.getState() == null
        || view.getState().getValues() == null) {
      return;
    }
    String[] where = view.getPrivateMetadata().split(" ");
    if (where.length != 3 || !SlackSettings.CHANNEL_ID.matcher(where[0]).matches() || !TS.matcher(where[1]).matches()) {
      return;
    }
    List<String> here = antsByChannel.get(where[0]);
    var input = view.getState().getValues().getOrDefault(SlackText.COMMENT, Map.of()).get(SlackText.COMMENT);
    String comment = input == null ? null : input.getValue();
    if (here == null) {
      return;
    }
    work.submit(() -> {
      try {
        Message m = api.message(where[0], where[1]);
        answerPress(where[0], where[1], m == null ? null : m.getText(), here, where[2], false, comment, user);
      } catch (Exception e) {
        log.warn("slack: re-queue of task {} not handled: {}", where[2], e.getMessage());
      }
    });
  }

  /** Approves or re-queues (the presser is checked in {@link ChannelCommands#pressTask}), answers them alone, and shows the outcome on the post. */
  private void answerPress(String channel, String ts, String text, List<String> here, String taskId, boolean approve,
      String comment, String user) {
    try {
      ChatTasks.Answer a = commands.pressTask(here, taskId, approve, comment, speaker(user));
      tell(channel, user, a.text());
      if (a.outcome() != ChatTasks.Outcome.FAILED && text != null) {
        api.update(channel, ts, text, SlackText.taskDoneBlocks(text, a.line()));
      }
    } catch (Exception e) {
      log.warn("slack: task button on {} not handled: {}", taskId, e.getMessage());
    }
  }

  private void tell(String channel, String user, String text) {
    try {
      api.ephemeral(channel, user, SlackText.mrkdwn(text));
    } catch (Exception e) {
      log.warn("slack: answer to {} not posted: {}", user, e.getMessage());
    }
  }

  // ---- who ----

  /** A Slack user as a {@link Speaker}: the configured user groups they are in, admins and owners as admins. */
  Speaker speaker(String user) {
    String name = user;
    boolean admin = false;
    try {
      com.slack.api.model.User u = api.user(user);
      if (u != null) {
        name = u.getName() != null ? u.getName() : user;
        admin = u.isAdmin() || u.isOwner() || u.isPrimaryOwner();
      }
    } catch (Exception e) {
      log.warn("slack: cannot look up user {}: {}", user, e.getMessage());
    }
    Set<String> groups = new HashSet<>();
    Set<String> configured = new HashSet<>(settings.operators());
    settings.antOperators().values().forEach(configured::addAll);
    for (String op : configured) {
      if (SlackSettings.isGroup(op)) {
        try {
          if (api.groupMembers(op).contains(user)) {
            groups.add(op);
          }
        } catch (Exception e) {
          log.warn("slack: cannot list user group {}: {}", op, e.getMessage());
        }
      }
    }
    return new Speaker(user, name, groups, Set.of(), admin);
  }

  @Override
  public boolean connected() {
    SocketModeApp s = socket;
    // Not the client's verifyConnection(): that pings and may wait 3 s. The client reconnects by itself.
    return s != null && !s.isClientStopped();
  }

  @Override
  public void close() {
    SocketModeApp s = socket;
    socket = null;
    if (s != null) {
      try {
        s.close();
      } catch (Exception e) {
        log.debug("slack: closing the connection: {}", e.getMessage());
      }
    }
    work.shutdownNow();
  }
}
