package dev.colony.engine;

import dev.colony.spec.AntSpec;
import java.nio.file.Path;

/** Where full session output lives: on the worker's disk, never in Temporal history. */
public final class Transcripts {
  private Transcripts() {}

  public static Path forSession(AntSpec spec, int session) {
    return Path.of(spec.colonyDir(), ".colony", "transcripts", spec.name(),
        String.format("session-%05d.log", session));
  }
}
