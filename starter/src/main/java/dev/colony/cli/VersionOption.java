package dev.colony.cli;

import io.temporal.common.WorkerDeploymentVersion;
import java.util.regex.Pattern;
import picocli.CommandLine.Option;

/**
 * {@code --build-id} and {@code --deployment}: the worker deployment version a worker serves
 * (Temporal's Worker Versioning). Without a build id the worker is unversioned, as in
 * {@code colony dev}. See "Upgrading Colony" in docs/operations.md.
 */
final class VersionOption {
  /** What Temporal accepts in a deployment name or build id, kept to what reads well in a command. */
  static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,254}");

  @Option(names = "--build-id", paramLabel = "ID",
      description = "Serve this version of the worker deployment (Worker Versioning: each ant stays on the "
          + "version that started it until `colony upgrade` moves it; default: $COLONY_BUILD_ID, else unversioned).")
  String buildId;

  @Option(names = "--deployment", paramLabel = "NAME",
      description = "The worker deployment's name (default: $COLONY_DEPLOYMENT, else the task queue's name).")
  String deployment;

  /** The version to serve, checked; null for an unversioned worker. */
  WorkerDeploymentVersion resolve(String taskQueue) {
    String id = buildId != null ? buildId : env("COLONY_BUILD_ID");
    if (id == null) {
      if (deployment != null) {
        throw new UserError("--deployment needs --build-id: a versioned worker serves one build of the deployment");
      }
      return null;
    }
    return new WorkerDeploymentVersion(deploymentName(taskQueue), check("--build-id", id));
  }

  String deploymentName(String taskQueue) {
    String name = deployment != null ? deployment : env("COLONY_DEPLOYMENT");
    return check("--deployment", name != null ? name : taskQueue);
  }

  static String check(String option, String value) {
    if (!NAME.matcher(value).matches()) {
      throw new UserError("invalid " + option + " '" + dev.colony.config.Problem.printable(value, 40)
          + "': use letters, digits, '.', '_' or '-' (at most 255), starting with a letter or digit");
    }
    return value;
  }

  private static String env(String name) {
    String v = dev.colony.secrets.Invocation.env(name);
    return v == null || v.isBlank() ? null : v.strip();
  }
}
