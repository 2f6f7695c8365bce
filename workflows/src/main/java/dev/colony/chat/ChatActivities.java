package dev.colony.chat;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** Posts to an ant's channel (console, later Discord). */
@ActivityInterface
public interface ChatActivities {
  @ActivityMethod(name = "Post")
  void post(ChatPost post);
}
