package dev.colony.chat.impl;

import dev.colony.chat.ChatActivities;
import dev.colony.chat.ChatPost;
import io.temporal.activity.Activity;

/**
 * Delivers posts to a sink at most once per idempotency key: a retried or replayed post whose
 * key was already delivered is dropped. Keys are remembered in a {@link DeliveryJournal} file
 * every worker on the machine shares (so a post retried on a new worker after a crash is dropped
 * too), or, without one, in this worker's memory.
 */
public final class ChatActivitiesImpl implements ChatActivities {
  private static final int REMEMBERED_KEYS = 10_000;

  private final ChatSink sink;
  /** Used only without a journal (the journal keeps its own). */
  private final RecentKeys delivered = new RecentKeys(REMEMBERED_KEYS);

  private final DeliveryJournal journal;

  public ChatActivitiesImpl(ChatSink sink) {
    this(sink, null);
  }

  public ChatActivitiesImpl(ChatSink sink, DeliveryJournal journal) {
    this.sink = sink;
    this.journal = journal;
  }

  @Override
  public void post(ChatPost post) {
    try {
      if (journal != null) {
        journal.deliverOnce(post.idempotencyKey(), () -> sink.deliver(post));
      } else if (!delivered.contains(post.idempotencyKey())) {
        sink.deliver(post);
        delivered.add(post.idempotencyKey());
      }
    } catch (Exception e) {
      throw Activity.wrap(e);
    }
  }
}
