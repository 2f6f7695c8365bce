package dev.colony.autonomy;

/**
 * The answer to a confirmation: approved or denied, by whom ({@code timeout} when nobody
 * answered in time), and the id operators saw in the request.
 */
public record ConfirmationDecision(int id, boolean approved, String by, String note) {}
