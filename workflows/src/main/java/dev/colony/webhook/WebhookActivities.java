package dev.colony.webhook;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** Delivers colony events to the colony's webhook (POST JSON, signed). */
@ActivityInterface
public interface WebhookActivities {
  /**
   * @param delivery the event and where it goes; the URL may hold {@code ${VAR}} references and the
   *     secret is a variable name: both are resolved on the worker, never stored in history
   */
  @ActivityMethod(name = "DeliverWebhook")
  void deliver(WebhookDelivery delivery);
}
