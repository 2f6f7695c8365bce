package dev.colony.discord;

import dev.colony.chat.ChatPost;
import dev.colony.chat.OperatorMessages;
import dev.colony.chat.impl.ChatSink;
import dev.colony.chat.impl.ChatText;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Posts to each ant's Discord channel over REST, from any worker. Long posts are split at line
 * breaks into messages of at most 2,000 characters; each part has its own nonce, so a retried
 * post (same idempotency key) shows each part once. Posts that need a human mention the
 * operators, and a one-line copy with a link goes to the alerts channel when there is one. A post
 * about a task waiting for a human ({@code ChatPost.taskId}) carries Approve and Re-queue buttons. A
 * channel that does not exist or a missing permission is logged in one line and the post is
 * dropped: retrying cannot fix it, and it must not stop the ant.
 */
public final class DiscordSink implements ChatSink {
  private static final Logger log = LoggerFactory.getLogger(DiscordSink.class);

  private final DiscordRest rest;
  private final DiscordSettings settings;
  private volatile java.util.Map<String, String> roles;

  public DiscordSink(DiscordRest rest, DiscordSettings settings) {
    this.rest = rest;
    this.settings = settings;
  }

  @Override
  public void deliver(ChatPost post) throws Exception {
    String channel;
    try {
      channel = rest.channel(settings.guild(), post.channel() == null ? "" : post.channel());
    } catch (DiscordRest.DiscordException e) {
      log.warn("discord: post of {} not delivered: {}", post.ant(), e.getMessage());
      return;
    }
    boolean alert = OperatorMessages.needsHuman(post.text());
    Mentions who = alert ? settings.mentionsFor(post.ant(), roles()) : Mentions.NONE;
    String text = who.prefix() + post.text();
    List<String> parts = ChatText.split(text, DiscordRest.MAX_MESSAGE);
    String firstId = null;
    try {
      for (int i = 0; i < parts.size(); i++) {
        // A task waiting for a human: its buttons go under the last part, where the post ends.
        com.fasterxml.jackson.databind.JsonNode buttons = post.taskId() != null && i == parts.size() - 1
            ? DiscordRest.taskButtons(post.taskId()) : null;
        String id = rest.post(channel, parts.get(i), DiscordRest.nonce(post.idempotencyKey() + "#" + i),
            who.users(), who.roles(), buttons);
        firstId = firstId == null ? id : firstId;
      }
      if (alert && settings.alertsChannel() != null) {
        String alerts = rest.channel(settings.guild(), settings.alertsChannel());
        String link = "https://discord.com/channels/" + rest.guild(settings.guild()) + "/" + channel + "/" + firstId;
        String line = ChatText.firstLine(post.text(), 300);
        rest.post(alerts, who.prefix() + line + " " + link, DiscordRest.nonce(post.idempotencyKey() + "#alert"),
            who.users(), who.roles());
      }
    } catch (DiscordRest.DiscordException e) {
      if (e.status == 404) {
        rest.forgetChannels();
      }
      log.warn("discord: post of {} not delivered: {}", post.ant(), e.getMessage());
    }
  }

  /** The guild's roles (id to name), looked up once; none when they cannot be listed. */
  private java.util.Map<String, String> roles() throws InterruptedException {
    java.util.Map<String, String> known = roles;
    if (known == null) {
      try {
        known = rest.roles(settings.guild());
        roles = known;
      } catch (java.io.IOException | DiscordRest.DiscordException e) {
        log.warn("discord: cannot list the guild's roles for mentions: {}", e.getMessage());
        known = java.util.Map.of();
      }
    }
    return known;
  }
}
