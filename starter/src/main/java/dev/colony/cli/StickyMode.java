package dev.colony.cli;

/** Whether a worker caches workflows on a sticky queue. */
enum StickyMode {
  /** Off against the embedded test server (it would strand ants of a killed worker), on otherwise. */
  AUTO,
  ON,
  OFF;

  boolean resolve(Temporal t) {
    return switch (this) {
      case ON -> true;
      case OFF -> false;
      case AUTO -> !t.isEmbeddedTestServer();
    };
  }
}
