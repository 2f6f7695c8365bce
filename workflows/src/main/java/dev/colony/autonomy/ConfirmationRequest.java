package dev.colony.autonomy;

/**
 * A dangerous tool call waiting for a human (the {@code confirm} update, sent by the session
 * activity).
 *
 * @param key stable for the same call in the same session (tool + input fingerprint), so an
 *     attempt retried after a worker crash finds the request, and any decision, already there
 * @param summary the tool input for humans, already bounded in size
 * @param reason which rule flagged it
 */
public record ConfirmationRequest(int session, String key, String tool, String summary, String reason) {}
