package dev.colony.config;

import dev.colony.errorpolicy.ErrorPolicy;
import dev.colony.overseer.OverseerSpec;
import dev.colony.spec.AntSpec;
import dev.colony.spec.GitIdentity;

/** What {@code colony.yaml}'s {@code defaults} block gives every ant that does not say otherwise. */
record Defaults(long confirmationTimeout, long pollInterval, long sessionTimeout,
    long heartbeatTimeout, GitIdentity git, ErrorPolicy errorPolicy, OverseerSpec overseer,
    Long moveAfter, dev.colony.spec.SandboxSpec sandbox) {
  static final Defaults NONE = new Defaults(AntSpec.DEFAULT_CONFIRMATION_TIMEOUT_SECONDS, 0,
      AntSpec.DEFAULT_SESSION_TIMEOUT_SECONDS, AntSpec.DEFAULT_HEARTBEAT_TIMEOUT_SECONDS, null,
      ErrorPolicy.DEFAULTS, null, null, null);
}
