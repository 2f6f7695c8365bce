package dev.colony.engine;

import dev.colony.spec.AntSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Where full session output lives: on the worker's disk, never in Temporal history. Transcripts
 * (and the prompt files beside them) can hold anything an agent saw, secrets included, so they
 * are readable by their owner only.
 */
public final class Transcripts {
  private Transcripts() {}

  public static Path forSession(AntSpec spec, int session) {
    return Path.of(spec.colonyDir(), ".colony", "transcripts", spec.name(),
        String.format("session-%05d.log", session));
  }

  /** Creates the transcript's directory (owner only) and the file itself (owner read/write). */
  public static void prepare(Path transcript) throws IOException {
    Path dir = transcript.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    try {
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
      if (!Files.exists(transcript)) {
        Files.createFile(transcript, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      } else {
        Files.setPosixFilePermissions(transcript, PosixFilePermissions.fromString("rw-------"));
      }
    } catch (UnsupportedOperationException notPosix) {
      // Windows and friends: the user's profile directory protects it
    }
  }
}
