package dev.colony.chat;

/**
 * A message to an ant's channel. {@code idempotencyKey} is derived by the workflow (workflow
 * id, run id, a sequence it owns), so it is the same on every retry and replay: sinks drop a
 * key they have already delivered.
 */
public record ChatPost(String colony, String ant, String channel, String text, String idempotencyKey) {}
