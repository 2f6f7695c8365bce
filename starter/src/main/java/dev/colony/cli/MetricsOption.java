package dev.colony.cli;

import dev.colony.worker.Metrics;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import picocli.CommandLine.Option;

/**
 * {@code --metrics-port} and {@code --metrics-bind}, shared by the commands that run for long
 * ({@code worker}, {@code run}, {@code dev}, {@code console}): the process's metrics served at
 * {@code /metrics} in the Prometheus text format. Off unless a port is given.
 */
final class MetricsOption {
  /** The port the docs suggest (the one OpenTelemetry's Prometheus exporter uses). */
  static final int SUGGESTED_PORT = 9464;

  @Option(names = "--metrics-port", paramLabel = "PORT",
      description = "Serve this process's metrics (the Temporal SDK's worker and client meters, the JVM's; with a "
          + "worker, the colony's figures of state when this process holds the colony's metrics lease) in "
          + "the Prometheus text format at /metrics on this port (default: off; 9464 is the usual one; 0: any "
          + "free one). See docs/observability.md.")
  String port;

  /** How often the colony's figures of state are read (tests shorten it); hidden: the default is the documented one. */
  @Option(names = "--metrics-state-every", paramLabel = "DURATION", hidden = true)
  String stateEvery;

  @Option(names = "--metrics-bind", paramLabel = "ADDRESS",
      description = "The address /metrics is served on (default: 127.0.0.1, this machine only; 0.0.0.0: every "
          + "interface, for a Prometheus on another host).")
  String bind;

  /**
   * The options checked, before anything starts: null when off. A malformed value is a {@link UsageError}
   * (exit 2), a host name that does not resolve a {@link UserError}; each one line naming the option.
   */
  InetSocketAddress address() {
    stateEvery();
    if (port == null) {
      if (bind != null) {
        throw new UsageError("--metrics-bind needs --metrics-port: the metrics are served only on a port given "
            + "(for example --metrics-port " + SUGGESTED_PORT + ")");
      }
      return null;
    }
    int number;
    try {
      number = Integer.parseInt(port.strip());
    } catch (NumberFormatException e) {
      number = -1;
    }
    if (number < 0 || number > 65535) {
      throw new UsageError("invalid --metrics-port '" + dev.colony.text.Printable.line(port, 40)
          + "': give a port from 1 to 65535 (0: any free one)");
    }
    String host = bind == null ? "127.0.0.1" : bind.strip();
    if (host.isEmpty()) {
      throw new UsageError("invalid --metrics-bind '': give an address (127.0.0.1: this machine only; 0.0.0.0: every interface)");
    }
    InetAddress address;
    try {
      address = InetAddress.getByName(host);
    } catch (UnknownHostException | SecurityException e) {
      throw new UserError("invalid --metrics-bind '" + dev.colony.text.Printable.line(host, 80)
          + "': not an address or a known host name (127.0.0.1: this machine only; 0.0.0.0: every interface)");
    }
    return new InetSocketAddress(address, number);
  }

  /** How often the colony's reporter reads the figures of state: {@code --metrics-state-every}, else 30 s. */
  java.time.Duration stateEvery() {
    if (stateEvery == null) {
      return dev.colony.worker.ColonyReporter.DEFAULT_PERIOD;
    }
    try {
      long s = dev.colony.config.Durations.parseSeconds(stateEvery);
      if (s < 1) {
        throw new IllegalArgumentException("at least 1s");
      }
      return java.time.Duration.ofSeconds(s);
    } catch (IllegalArgumentException e) {
      throw new UsageError("invalid --metrics-state-every '" + dev.colony.text.Printable.line(stateEvery, 40) + "': "
          + dev.colony.config.Durations.ACCEPTED + ", at least 1s");
    }
  }

  /**
   * The process's metrics, serving {@code /metrics} when a port is given (told on {@code out});
   * null when off. A port taken or an address not this machine's is a {@link UserError} naming the option.
   */
  Metrics start(java.io.PrintWriter out) {
    InetSocketAddress at = address();
    if (at == null) {
      return null;
    }
    Metrics metrics = Metrics.create();
    InetSocketAddress serving;
    try {
      serving = metrics.serve(at);
    } catch (IOException e) {
      metrics.close();
      String where = dev.colony.text.Printable.line(at.getHostString(), 80);
      if (e instanceof BindException && String.valueOf(e.getMessage()).contains("in use")) {
        throw new UserError("--metrics-port " + at.getPort() + " on " + where
            + " is taken: choose another port (0: any free one)");
      }
      throw new UserError("cannot serve the metrics on " + where + " port " + at.getPort() + " (--metrics-bind, --metrics-port): "
          + dev.colony.text.Printable.line(String.valueOf(e.getMessage()), 120));
    }
    out.printf("metrics on %s%n", url(serving));
    out.flush();
    return metrics;
  }

  /** The scrape URL of an address served on (a wildcard address as 127.0.0.1, which reaches it). */
  static String url(InetSocketAddress serving) {
    InetAddress a = serving.getAddress();
    String host = a.isAnyLocalAddress() ? "127.0.0.1" : a.getHostAddress();
    if (host.contains(":")) {
      host = "[" + host + "]";
    }
    return "http://" + host + ":" + serving.getPort() + "/metrics";
  }

  /** Closes {@code metrics} when there are some: for the paths where a command fails after starting them. */
  static void close(Metrics metrics) {
    if (metrics != null) {
      metrics.close();
    }
  }
}
