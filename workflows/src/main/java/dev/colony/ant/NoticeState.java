package dev.colony.ant;

/**
 * Where the notices for one open need stand: carried over continue-as-new (and so over
 * {@code colony upgrade}), so the new run neither pushes the need again as a first notice nor
 * loses the time of its reminder or of the notice held back by quiet hours.
 *
 * @param need the need's id ({@code request-3}, {@code pause-billing-<since>})
 * @param round the round of the last notice (0: the first one, then each reminder)
 * @param reminders reminders sent so far
 * @param askedAtMillis when the last notice of this round was sent
 * @param remindAtMillis when the next reminder is due
 * @param heldUntilMillis when quiet hours that held the notice back end; 0 when none did
 */
public record NoticeState(String need, int round, int reminders, long askedAtMillis, long remindAtMillis,
    long heldUntilMillis) {}
