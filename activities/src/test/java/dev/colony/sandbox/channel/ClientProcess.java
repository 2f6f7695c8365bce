package dev.colony.sandbox.channel;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The channel's {@code colony} command run as a session runs it: a process started from the
 * channel's script (python3 or the JVM), its arguments as raw bytes (not UTF-8 ones too, passed
 * through {@code /bin/sh}), its output as bytes.
 */
final class ClientProcess {
  private ClientProcess() {}

  /** What a client did: its exit status, and the exact bytes it wrote to stdout and stderr. */
  record Ran(int code, byte[] out, byte[] err) {
    String outText() {
      return new String(out, StandardCharsets.UTF_8);
    }

    String errText() {
      return new String(err, StandardCharsets.UTF_8);
    }
  }

  /**
   * The channel's script for running outside a sandbox: the same as inside, with a copy of the
   * client's code in {@code dir} (it outlives the channel, as the bound one does inside) instead of
   * {@link ColonyChannel#CODE}.
   */
  static Path script(ColonyChannel channel, Path python, Path dir) throws IOException {
    Path lib = dir.resolve("lib");
    if (!Files.exists(lib)) {
      try (var files = Files.walk(channel.code())) {
        for (Path f : files.toList()) {
          Files.copy(f, lib.resolve(channel.code().relativize(f).toString()));
        }
      }
    }
    Path s = Files.createTempFile(dir, python == null ? "colony-jvm-" : "colony-python-", ".sh");
    Files.writeString(s, ColonyChannel.script(lib.toString(), python));
    s.toFile().setExecutable(true);
    return s;
  }

  static List<byte[]> bytes(String... args) {
    List<byte[]> b = new ArrayList<>();
    for (String a : args) {
      b.add(a.getBytes(StandardCharsets.UTF_8));
    }
    return b;
  }

  /** Runs {@code script} with {@code args}, {@code COLONY_CHANNEL} set to {@code channel} (null: unset), in the C locale. */
  static Ran run(Path script, String channel, List<byte[]> args) {
    try {
      Path out = Files.createTempFile("colony-client-out-", ".bin");
      Path err = Files.createTempFile("colony-client-err-", ".bin");
      List<Path> argFiles = new ArrayList<>();
      try {
        List<String> cmd = new ArrayList<>();
        if (args.stream().allMatch(ClientProcess::plain)) {
          cmd.add(script.toString());
          for (byte[] a : args) {
            cmd.add(new String(a, StandardCharsets.US_ASCII));
          }
        } else {
          // The JDK passes a String's bytes in its own charset: the raw bytes go through files.
          StringBuilder sh = new StringBuilder("set --\n");
          for (byte[] a : args) {
            Path f = Files.createTempFile(out.getParent(), "colony-client-arg-", ".bin");
            Files.write(f, a);
            argFiles.add(f);
            sh.append("a=$(cat '").append(f).append("'; printf x); set -- \"$@\" \"${a%x}\"\n");
          }
          sh.append("exec \"$0\" \"$@\"\n");
          cmd.addAll(List.of("/bin/sh", "-c", sh.toString(), script.toString()));
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Map<String, String> env = pb.environment();
        env.remove("COLONY_CHANNEL");
        env.remove("LC_ALL");
        env.remove("LC_CTYPE");
        env.put("LANG", "C");
        if (channel != null) {
          env.put("COLONY_CHANNEL", channel);
        }
        Process p = pb.start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          throw new AssertionError("the client did not end within 30 s: " + cmd.get(0));
        }
        return new Ran(p.exitValue(), Files.readAllBytes(out), Files.readAllBytes(err));
      } finally {
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
        for (Path f : argFiles) {
          Files.deleteIfExists(f);
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Printable ASCII (and no quote troubles): passed as it is. */
  private static boolean plain(byte[] a) {
    for (byte b : a) {
      if (b < 0x20 || b > 0x7E) {
        return false;
      }
    }
    return true;
  }
}
