package dev.colony.notify;

/**
 * What became of a notice.
 *
 * @param sent how many targets got it
 * @param heldUntilMillis the earliest end of quiet hours among targets that were skipped for them
 *     (the workflow asks again then, if still unanswered); 0 when none was
 */
public record NotifyResult(int sent, long heldUntilMillis) {}
