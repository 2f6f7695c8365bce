package dev.colony.session;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** Runs agent sessions. Implementations heartbeat while the agent works. */
@ActivityInterface
public interface SessionActivities {
  @ActivityMethod(name = "RunSession")
  SessionResult runSession(SessionRequest request);
}
