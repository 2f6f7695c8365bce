package dev.colony.chat;

import io.temporal.activity.Activity;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Delivers posts to a sink at most once per idempotency key: a retried or replayed post whose
 * key was already delivered by this worker is dropped.
 */
public final class ChatActivitiesImpl implements ChatActivities {
  private static final int REMEMBERED_KEYS = 10_000;

  private final ChatSink sink;
  private final Set<String> delivered = Collections.newSetFromMap(
      Collections.synchronizedMap(new LinkedHashMap<>(1024, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
          return size() > REMEMBERED_KEYS;
        }
      }));

  public ChatActivitiesImpl(ChatSink sink) {
    this.sink = sink;
  }

  @Override
  public void post(ChatPost post) {
    if (delivered.contains(post.idempotencyKey())) {
      return;
    }
    try {
      sink.deliver(post);
    } catch (Exception e) {
      throw Activity.wrap(e);
    }
    delivered.add(post.idempotencyKey());
  }
}
