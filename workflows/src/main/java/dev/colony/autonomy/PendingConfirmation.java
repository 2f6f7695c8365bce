package dev.colony.autonomy;

/** A confirmation waiting for a decision, as shown by {@code status}. */
public record PendingConfirmation(int id, int session, String tool, String summary, String reason,
    String deadline) {}
