package dev.colony.toolgate;

import dev.colony.autonomy.ConfirmationDecision;
import dev.colony.autonomy.ConfirmationRequest;

/** Asks a human about a dangerous call and waits for the answer. */
public interface Confirmer {
  ConfirmationDecision confirm(ConfirmationRequest request);
}
