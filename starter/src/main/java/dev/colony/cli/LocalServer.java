package dev.colony.cli;

/** A Temporal server Colony runs for you ({@code colony dev}, {@code colony server}). */
sealed interface LocalServer extends AutoCloseable permits DevServer, EmbeddedServer {
  /** host:port of its frontend. */
  String address();

  /** The Web UI's URL, or null when this server has none. */
  String webUi();

  /** One line for the startup banner: what runs, where, and where its state lives. */
  String describe();

  /** Completes if the server stops by itself (it crashed or was killed). */
  java.util.concurrent.CompletableFuture<?> exited();

  @Override
  void close();
}
