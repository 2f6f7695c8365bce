package dev.colony.notify;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** Pushes notices that an ant needs a human to phones (ntfy) and the colony's webhook. */
@ActivityInterface
public interface NotifyActivities {
  @ActivityMethod(name = "Notify")
  NotifyResult notify(Notice notice);
}
