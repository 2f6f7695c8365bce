package dev.colony.cli;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Checks a Temporal frontend address before gRPC sees it, so a typo is one clear line. */
final class Addresses {
  private static final Pattern HOST_PORT = Pattern.compile("(\\[[0-9A-Fa-f:.]+]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?):([^:]*)");

  private Addresses() {}

  /** What is wrong with {@code address}, or null when it is a usable host:port. */
  static String problem(String address) {
    String a = address == null ? "" : address.strip();
    String shown = "'" + dev.colony.config.Problem.printable(a, 80) + "'";
    if (a.isEmpty()) {
      return "--address is empty: give host:port, e.g. localhost:7233";
    }
    if (a.contains("://")) {
      return "--address " + shown + " has a scheme: give host:port without it, e.g. localhost:7233";
    }
    Matcher m = HOST_PORT.matcher(a);
    if (!m.matches()) {
      return "--address " + shown + " is not host:port (e.g. localhost:7233 or 10.0.0.5:7233)";
    }
    String port = m.group(3);
    if (!port.matches("\\d{1,5}") || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) {
      return "--address " + shown + ": the port must be a number from 1 to 65535";
    }
    return null;
  }

  /** Ports given with --port / --ui-port. */
  static void requirePort(int port, String option) {
    if (port < 1 || port > 65535) {
      throw new UsageError(option + " " + port + ": a port is a number from 1 to 65535");
    }
  }
}
