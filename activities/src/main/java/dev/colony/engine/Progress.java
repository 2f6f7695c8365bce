package dev.colony.engine;

/**
 * How a running engine reports liveness. {@link #beat} records a heartbeat with the engine's
 * conversation id (so a retried attempt can resume it) and throws
 * {@link SessionCancelledException} once the workflow has cancelled the session.
 */
public interface Progress {
  void beat(String conversationId);

  /** Conversation id heartbeated by a previous attempt of this same session, if any. */
  String previousConversationId();

  Progress NONE = new Progress() {
    @Override
    public void beat(String conversationId) {}

    @Override
    public String previousConversationId() {
      return null;
    }
  };
}
