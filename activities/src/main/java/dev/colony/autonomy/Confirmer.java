package dev.colony.autonomy;

/** Asks a human about a dangerous call and waits for the answer. */
public interface Confirmer {
  ConfirmationDecision confirm(ConfirmationRequest request);
}
