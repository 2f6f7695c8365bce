package dev.colony.cli;

/** slf4j-simple setup: quiet by default (the console is the ants' chat), verbose on request. */
final class Logging {
  private static volatile boolean verbose;
  /** gRPC logs through java.util.logging (name-resolution failures with stack traces): quiet it. */
  private static final java.util.logging.Logger GRPC = java.util.logging.Logger.getLogger("io.grpc");

  private Logging() {}

  static void init() {
    setIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    setIfAbsent("org.slf4j.simpleLogger.log.dev.colony", "warn");
    // Which worker holds the colony's Discord gateway or Slack connection: one line each time it
    // changes hands.
    setIfAbsent("org.slf4j.simpleLogger.log.dev.colony.chat.impl.LeasedConnection", "info");
    // The Slack SDK logs each Socket Mode reconnect and every unhandled event type at INFO/WARN;
    // Colony reports the connection itself.
    setIfAbsent("org.slf4j.simpleLogger.log.com.slack.api", "error");
    // The test server logs every user-visible signal race at WARN; those are normal here.
    setIfAbsent("org.slf4j.simpleLogger.log.io.temporal.internal.testservice", "error");
    // Worker heartbeats to the server are optional; the embedded server does not take them.
    setIfAbsent("org.slf4j.simpleLogger.log.io.temporal.internal.worker.HeartbeatManager", "error");
    // The SDK logs every failed poll with a stack trace (thousands of lines a minute while the
    // server is away); the worker reports the connection itself in one line each way instead.
    setIfAbsent("org.slf4j.simpleLogger.log.io.temporal.internal.worker.BasePoller", "off");
    setIfAbsent("org.slf4j.simpleLogger.log.io.temporal.internal.worker.Poller", "off");
    setIfAbsent("org.slf4j.simpleLogger.log.io.temporal", "error");
    // The MCP SDK warns with what a client sent, raw (an unknown notification's parameters: terminal
    // escapes, forged log lines); Colony answers the client itself.
    setIfAbsent("org.slf4j.simpleLogger.log.io.modelcontextprotocol", "error");
    setIfAbsent("org.slf4j.simpleLogger.showDateTime", "true");
    setIfAbsent("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
    setIfAbsent("org.slf4j.simpleLogger.logFile", "System.err");
    GRPC.setLevel(java.util.logging.Level.OFF);
  }

  static void verbose() {
    if (dev.colony.secrets.Invocation.current() != null) {
      // The whole process's switch: a caller of the resident process gets a JVM of its own for it.
      throw new dev.colony.secrets.Invocation.OwnProcessNeeded("verbose logging");
    }
    verbose = true;
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "info");
    System.setProperty("org.slf4j.simpleLogger.log.dev.colony", "info");
    System.setProperty("org.slf4j.simpleLogger.log.io.temporal", "info");
    System.setProperty("org.slf4j.simpleLogger.log.io.temporal.internal.worker.BasePoller", "info");
    System.setProperty("org.slf4j.simpleLogger.log.io.temporal.internal.worker.Poller", "info");
    GRPC.setLevel(java.util.logging.Level.INFO);
  }

  static boolean isVerbose() {
    return verbose;
  }

  private static void setIfAbsent(String key, String value) {
    if (System.getProperty(key) == null) {
      System.setProperty(key, value);
    }
  }
}
