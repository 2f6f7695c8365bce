package dev.colony.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class TranscriptsTest {
  @TempDir
  Path tmp;

  @Test
  void transcriptsAndTheirDirectoryAreReadableByTheirOwnerOnly() throws Exception {
    Path t = tmp.resolve(".colony/transcripts/ant/session-00001.log");
    Transcripts.prepare(t);
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(t.getParent())));
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(t)));
    Files.setPosixFilePermissions(t, PosixFilePermissions.fromString("rw-r--r--"));
    Transcripts.prepare(t); // a file left from an older run is tightened too
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(t)));
  }
}
