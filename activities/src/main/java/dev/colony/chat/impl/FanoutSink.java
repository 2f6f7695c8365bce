package dev.colony.chat.impl;

import dev.colony.chat.ChatPost;
import java.util.List;

/**
 * Every post to each of several chats (Discord and Slack). A chat that fails does not keep the
 * post from the others; the post is then retried, and the chats that already have it are skipped
 * (remembered by idempotency key in this worker; across workers each chat's own duplicate check
 * applies).
 */
public final class FanoutSink implements ChatSink {
  private static final int REMEMBERED = 10_000;

  private final List<ChatSink> sinks;
  private final RecentKeys delivered = new RecentKeys(REMEMBERED);

  public FanoutSink(List<ChatSink> sinks) {
    this.sinks = List.copyOf(sinks);
  }

  /** One sink as itself, several fanned out. */
  public static ChatSink of(List<ChatSink> sinks) {
    return sinks.size() == 1 ? sinks.get(0) : new FanoutSink(sinks);
  }

  @Override
  public void deliver(ChatPost post) throws Exception {
    Exception failed = null;
    for (int i = 0; i < sinks.size(); i++) {
      String key = post.idempotencyKey() + "@" + i;
      if (delivered.contains(key)) {
        continue;
      }
      try {
        sinks.get(i).deliver(post);
        delivered.add(key);
      } catch (Exception e) {
        if (failed == null) {
          failed = e;
        } else {
          failed.addSuppressed(e);
        }
      }
    }
    if (failed != null) {
      throw failed;
    }
  }
}
