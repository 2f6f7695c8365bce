package dev.colony.worker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A {@code colony} command an agent can run: the launcher when the worker was started by it
 * ({@code -Dcolony.bin}), else a small script that runs this worker's own jar with its own JVM.
 */
final class ColonyBin {
  private ColonyBin() {}

  /** The path, or null when neither exists (a worker embedded in tests, say). */
  static String path() {
    String launcher = System.getProperty("colony.bin");
    if (launcher != null && Files.isExecutable(Path.of(launcher))) {
      return launcher;
    }
    try {
      Path jar = Path.of(ColonyWorker.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      String javaBin = ProcessHandle.current().info().command().orElse(null);
      if (!Files.isRegularFile(jar) || !jar.toString().endsWith(".jar") || javaBin == null) {
        return null;
      }
      Path dir = Files.createDirectories(jar.getParent().resolve("bin"));
      Path script = dir.resolve("colony");
      String body = "#!/bin/sh\nexec " + quote(javaBin) + " -jar " + quote(jar.toString()) + " \"$@\"\n";
      if (!Files.isRegularFile(script) || !Files.readString(script).equals(body)) {
        Path tmp = Files.createTempFile(dir, "colony", ".tmp");
        Files.writeString(tmp, body, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.move(tmp, script, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
            java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      }
      return script.toString();
    } catch (IOException | java.net.URISyntaxException | RuntimeException e) {
      return null;
    }
  }

  private static String quote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }
}
