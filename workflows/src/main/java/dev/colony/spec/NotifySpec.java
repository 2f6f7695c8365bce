package dev.colony.spec;

import java.util.List;

/**
 * Where notices that an ant needs a human go besides the chat ({@code integrations.notify}), as
 * written: topic URLs and tokens stay {@code ${VAR}} references, resolved on the worker.
 *
 * @param remindAfterSeconds a notice nobody answered is sent again after this long (0: never)
 * @param reminders how many times at most
 * @param webUi the Temporal Web UI's address, for a notice's click-through link to the ant
 * @param quietHours the colony's quiet hours (null: none); a target may have its own
 * @param ntfy the ntfy topics notices are published to
 * @param webhookUrl the colony webhook ({@code integrations.webhook.url}) notices are also POSTed to; null: none
 * @param webhookSecretVar the variable holding the webhook's signing secret; null: unsigned
 */
public record NotifySpec(long remindAfterSeconds, int reminders, String webUi, QuietHours quietHours,
    List<Ntfy> ntfy, String webhookUrl, String webhookSecretVar) {
  public static final long DEFAULT_REMIND_AFTER_SECONDS = 30 * 60;
  public static final String DEFAULT_WEB_UI = "http://localhost:8233";

  public NotifySpec {
    ntfy = ntfy == null ? List.of() : List.copyOf(ntfy);
  }

  /**
   * A window of the day, in a time zone, when only urgent notices are pushed.
   *
   * @param from start, "HH:mm"
   * @param to end, "HH:mm" (before {@code from}: the window spans midnight)
   */
  public record QuietHours(String timezone, String from, String to) {}

  /**
   * One ntfy topic (a team's, or one operator's phone).
   *
   * @param name what the worker's log calls it
   * @param url the topic's URL as written ({@code https://ntfy.sh/topic} or a {@code ${VAR}} reference)
   * @param tokenVar the variable holding an access token; null: none
   * @param priority ntfy priority of notices that are not urgent (urgent ones are "urgent")
   * @param quietHours this topic's own quiet hours (null: the colony's)
   */
  public record Ntfy(String name, String url, String tokenVar, String priority, QuietHours quietHours) {}
}
