package dev.colony.webhook;

import dev.colony.supervision.ColonyEvent;

/**
 * One event for the colony's webhook.
 *
 * @param url as written in colony.yaml ({@code ${VAR}} references unresolved)
 * @param secretVar the variable holding the signing secret; null: unsigned
 */
public record WebhookDelivery(String colony, String colonyDir, String url, String secretVar, ColonyEvent event) {}
