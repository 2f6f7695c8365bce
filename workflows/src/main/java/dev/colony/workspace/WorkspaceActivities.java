package dev.colony.workspace;

import dev.colony.spec.AntSpec;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** Prepares an ant's working directory. Idempotent: calling it again returns the same place. */
@ActivityInterface
public interface WorkspaceActivities {
  /** @return absolute path of the ant's workspace */
  @ActivityMethod(name = "PrepareWorkspace")
  String prepareWorkspace(AntSpec spec);
}
