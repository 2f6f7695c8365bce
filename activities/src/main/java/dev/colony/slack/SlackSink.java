package dev.colony.slack;

import com.slack.api.model.block.LayoutBlock;
import dev.colony.chat.ChatPost;
import dev.colony.chat.OperatorMessages;
import dev.colony.chat.impl.ChatSink;
import dev.colony.chat.impl.ChatText;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Posts to each ant's Slack channel over the Web API, from any worker. Posts that need a human
 * mention the operators (users and user groups), get a one-line copy with a link in the alerts
 * channel, a confirmation request carries Approve and Deny buttons, and a post about a task
 * waiting for a human Approve and Re-queue buttons. Each message carries its
 * idempotency key as message metadata; Slack has no idempotency keys of its own, so a post that
 * may be a retry (an attempt after the first, or made longer ago than a first attempt takes)
 * first looks for its key among the channel's recent messages. A refusal that retrying cannot
 * fix (unknown channel, missing scope, refused token) is one log line and the post is dropped:
 * it must not stop the ant. Slack down or rate limiting is thrown, so the post is retried.
 */
public final class SlackSink implements ChatSink {
  private static final Logger log = LoggerFactory.getLogger(SlackSink.class);
  /** Slack shows at most about 4,000 characters of a message's text well; a section block takes 3,000. */
  static final int MAX_MESSAGE = 2900;
  /** A post made longer ago than this may be a retry after its worker died: look before posting. */
  static final long FIRST_ATTEMPT_MILLIS = 5_000;
  /** How far back a retried post looks for itself (a post retried later than this was surely not made). */
  static final long LOOK_BACK_SECONDS = 15 * 60;

  private final SlackApi api;
  private final SlackSettings settings;
  private final LongSupplier clock;

  public SlackSink(SlackApi api, SlackSettings settings) {
    this(api, settings, System::currentTimeMillis);
  }

  SlackSink(SlackApi api, SlackSettings settings, LongSupplier clock) {
    this.api = api;
    this.settings = settings;
    this.clock = clock;
  }

  @Override
  public void deliver(ChatPost post) throws Exception {
    String named = channelFor(post.ant());
    if (named == null) {
      report(post.ant(), "none", "no Slack channel for '" + post.ant() + "': the post is dropped");
      return;
    }
    try {
      String channel = api.channelId(named);
      boolean alert = OperatorMessages.needsHuman(post.text());
      String mentions = alert && settings.mentionOperators() ? mentions(settings.operatorsOf(post.ant())) : "";
      OperatorMessages.RequestRef request = OperatorMessages.requestIn(post.text());
      List<String> parts = ChatText.split(mentions + SlackText.mrkdwn(post.text()), MAX_MESSAGE);
      Set<String> already = mayBeRetry(post) ? api.recentKeys(channel, since(post)) : Set.of();
      String firstTs = null;
      for (int i = 0; i < parts.size(); i++) {
        String key = post.idempotencyKey() + "#" + i;
        if (already.contains(key)) {
          continue;
        }
        boolean asks = request != null && i == parts.size() - 1;
        boolean task = !asks && post.taskId() != null && i == parts.size() - 1;
        List<LayoutBlock> blocks = asks ? SlackText.requestBlocks(parts.get(i), request.ant(), request.id())
            : task ? SlackText.taskBlocks(parts.get(i), post.taskId()) : null;
        String ts = api.post(channel, parts.get(i), blocks, key, asks ? request.ant() + "#" + request.id() : null);
        firstTs = firstTs == null && i == 0 ? ts : firstTs;
      }
      if (alert && settings.alertsChannel() != null) {
        String alerts = api.channelId(settings.alertsChannel());
        String key = post.idempotencyKey() + "#alert";
        Set<String> inAlerts = mayBeRetry(post) && !alerts.equals(channel) ? api.recentKeys(alerts, since(post)) : already;
        if (!inAlerts.contains(key)) {
          String link = firstTs == null ? "" : " <" + api.permalink(channel, firstTs) + "|open>";
          api.post(alerts, mentions + SlackText.mrkdwn(ChatText.firstLine(post.text(), 300)) + link, null, key, null);
        }
      }
    } catch (SlackApi.SlackException e) {
      if (e.retryable) {
        throw new IOException("slack: " + e.getMessage());
      }
      if (e.error.equals("channel_not_found")) {
        api.forgetChannels();
      }
      report(post.ant(), e.error, "post of " + post.ant() + " to '" + named + "' not delivered: " + e.getMessage());
    }
  }

  /** The ant's channel; for the colony's own posts (and an ant without one) the alerts channel, else the first. */
  String channelFor(String ant) {
    String c = settings.channelOf(ant);
    if (c == null) {
      c = settings.alertsChannel();
    }
    if (c == null) {
      c = settings.channels().values().stream().sorted().findFirst().orElse(null);
    }
    return c;
  }

  private boolean mayBeRetry(ChatPost post) {
    if (attempt() > 1) {
      return true;
    }
    return post.at() <= 0 || clock.getAsLong() - post.at() > FIRST_ATTEMPT_MILLIS;
  }

  private long since(ChatPost post) {
    long from = post.at() > 0 ? post.at() / 1000 - 60 : clock.getAsLong() / 1000 - LOOK_BACK_SECONDS;
    return Math.max(from, clock.getAsLong() / 1000 - LOOK_BACK_SECONDS);
  }

  /** The attempt of the activity delivering the post (1 outside an activity). */
  private static int attempt() {
    try {
      return io.temporal.activity.Activity.getExecutionContext().getInfo().getAttempt();
    } catch (RuntimeException e) {
      return 1;
    }
  }

  static String mentions(List<String> operators) {
    StringBuilder sb = new StringBuilder();
    for (String op : operators) {
      sb.append(SlackSettings.isGroup(op) ? "<!subteam^" + op + "> " : "<@" + op + "> ");
    }
    return sb.toString();
  }

  private void report(String ant, String error, String line) {
    api.reportOnce(log, "post/" + ant + "/" + error, line);
  }
}
