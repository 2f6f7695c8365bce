package dev.colony.cli;

import dev.colony.workspace.impl.WorkspaceActivitiesImpl;
import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * {@code --host} and {@code --workspace-root}, shared by the commands that run a worker. An ant's
 * workspace lives on one host: its sessions run on that host's queue.
 */
final class HostOption {
  @Option(names = "--host", paramLabel = "NAME",
      description = "This worker's host name: the ants it holds run their sessions here, next to their "
          + "worktrees (default: $COLONY_HOST, else the machine's host name).")
  String host;

  @Option(names = "--workspace-root", paramLabel = "DIR",
      description = "Where this host keeps the ants' workspaces (default: the colony's .colony/workspaces).")
  Path workspaceRoot;

  @Option(names = "--cache-size", paramLabel = "N",
      description = "How many ants' workflows this worker keeps in memory (default: 10000). An ant "
          + "beyond it is replayed from its history at its next event.")
  Integer cacheSize;

  /** The host name to use: checked, or the default. */
  String resolve() {
    if (cacheSize != null && cacheSize < 1) {
      throw new UserError("invalid --cache-size " + cacheSize + ": give a number of ants, at least 1");
    }
    String name = host != null ? host : defaultHost();
    if (!WorkspaceActivitiesImpl.HOST_NAME.matcher(name).matches()) {
      throw new UserError("invalid --host '" + clip(name) + "': use letters, digits, '.', '_' or '-', "
          + "starting with a letter or digit (at most 63)");
    }
    return name;
  }

  Path resolvedRoot() {
    return workspaceRoot == null ? null : workspaceRoot.toAbsolutePath().normalize();
  }

  static String defaultHost() {
    String env = dev.colony.secrets.Invocation.env("COLONY_HOST");
    if (env != null && !env.isBlank()) {
      return env.strip();
    }
    String name;
    try {
      name = java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.net.UnknownHostException e) {
      name = "localhost";
    }
    String clean = name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9._-]", "-").replaceAll("^[^a-z0-9]+", "");
    clean = clean.length() > 63 ? clean.substring(0, 63) : clean;
    return clean.isEmpty() ? "localhost" : clean;
  }

  private static String clip(String s) {
    return dev.colony.text.Printable.line(s, 80);
  }
}
