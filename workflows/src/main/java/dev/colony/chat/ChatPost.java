package dev.colony.chat;

/**
 * A message to an ant's channel. {@code idempotencyKey} is derived by the workflow (workflow
 * id, run id, a sequence it owns), so it is the same on every retry and replay: sinks drop a
 * key they have already delivered.
 *
 * @param at when the post was made (epoch milliseconds, workflow time for an ant's posts; 0:
 *     unknown). A chat without idempotency keys of its own (Slack) looks for the post in the
 *     channel before posting one that is older than a first attempt can be: a retry after a
 *     worker died mid-post.
 * @param taskId a task waiting for a human (In Review, Blocked): the chat shows Approve and
 *     Re-queue buttons for it under the text; null for a plain post
 */
public record ChatPost(String colony, String ant, String channel, String text, String idempotencyKey, long at,
    String taskId) {
  public ChatPost(String colony, String ant, String channel, String text, String idempotencyKey) {
    this(colony, ant, channel, text, idempotencyKey, 0);
  }

  public ChatPost(String colony, String ant, String channel, String text, String idempotencyKey, long at) {
    this(colony, ant, channel, text, idempotencyKey, at, null);
  }
}
