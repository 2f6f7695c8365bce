package dev.colony.sandbox.channel;

import dev.colony.sandbox.Bubblewrap;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The channel's client in python3 ({@value #FILE}, a resource beside {@link ChannelClient}): the same
 * wire, bounds, messages, exit codes and streams as {@link ChannelClient}, started in a few
 * milliseconds instead of a JVM's tens. A channel runs it when the worker's {@link #PYTHON} runs it
 * from what every sandbox shows (under {@code /usr}, {@link Bubblewrap#shows}); else the JVM client.
 * Decided when a channel opens (its script is fixed), checked once per interpreter and again only
 * when the interpreter's file changes.
 */
final class PythonClient {
  private static final Logger log = LoggerFactory.getLogger(PythonClient.class);

  /** The interpreter a session runs the client with (Debian's python3 lives under /usr). */
  static final Path PYTHON = Path.of("/usr/bin/python3");
  /** The client's file, copied beside {@link ChannelClient}'s class. */
  static final String FILE = "channel_client.py";
  /**
   * Isolated (no {@code PYTHON*} variables, no user site, not the script's directory on the path),
   * no {@code site}, UTF-8 mode: the arguments' bytes come back exactly, whatever the locale.
   */
  static final List<String> OPTIONS = List.of("-I", "-S", "-X", "utf8");

  /**
   * Runs the client's file as a module (its imports, its syntax on this interpreter), then prints
   * every file the interpreter loaded: its modules' and its mapped libraries'.
   */
  static final String PROBE = String.join("\n",
      "import sys",
      "if sys.version_info < (3, 7):",
      "    print('python ' + sys.version.split()[0] + ' is older than 3.7')",
      "    sys.exit(3)",
      "p = sys.argv[1]",
      "with open(p, 'rb') as f:",
      "    exec(compile(f.read(), p, 'exec'), {'__name__': 'colony_channel_probe'})",
      "print('ok ' + sys.version.split()[0])",
      "print(sys.executable)",
      "for m in list(sys.modules.values()):",
      "    f = getattr(m, '__file__', None)",
      "    if f:",
      "        print(f)",
      "with open('/proc/self/maps') as f:",
      "    for line in f:",
      "        parts = line.split(None, 5)",
      "        if len(parts) == 6:",
      "            print(parts[5].rstrip('\\n'))",
      "");

  private record Verdict(Path real, FileTime modified, String problem) {}

  private static final ConcurrentHashMap<Path, Verdict> CHECKED = new ConcurrentHashMap<>();

  private PythonClient() {}

  /**
   * Null when {@code python} runs the client at {@code client} from what a sandbox shows; else why
   * not, in one line.
   */
  static String problem(Path python, Path client) {
    if (!Files.isRegularFile(python) || !Files.isExecutable(python)) {
      return "no " + python;
    }
    if (!Bubblewrap.shows(python)) {
      return python + " is not under /usr: a sandbox does not show it";
    }
    Path real;
    FileTime modified;
    try {
      real = python.toRealPath();
      modified = Files.getLastModifiedTime(real);
    } catch (IOException e) {
      return "cannot read " + python + ": " + e.getMessage();
    }
    Verdict known = CHECKED.get(python);
    if (known != null && known.real().equals(real) && known.modified().equals(modified)) {
      return known.problem();
    }
    String problem = probe(python, real, client, Bubblewrap::shows);
    if (Thread.currentThread().isInterrupted()) {
      return problem; // not a verdict on the interpreter
    }
    CHECKED.put(python, new Verdict(real, modified, problem));
    if (problem == null) {
      log.info("sessions' colony command ($COLONY_BIN) runs on {} ({})", python, real);
    } else {
      log.info("sessions' colony command ($COLONY_BIN) runs on the JVM: {}", problem);
    }
    return problem;
  }

  /** {@link #problem} without the memory, with what a sandbox {@code shows} (tests). */
  static String probe(Path python, Path client, java.util.function.Predicate<Path> shows) {
    if (!Files.isRegularFile(python) || !Files.isExecutable(python)) {
      return "no " + python;
    }
    try {
      return probe(python, python.toRealPath(), client, shows);
    } catch (IOException e) {
      return "cannot read " + python + ": " + e.getMessage();
    }
  }

  private static String probe(Path python, Path real, Path client, java.util.function.Predicate<Path> shows) {
    if (!shows.test(real)) {
      return python + " is " + real + ", which a sandbox does not show";
    }
    Path out = null;
    try {
      out = Files.createTempFile(client.getParent(), "probe-", ".txt");
      List<String> cmd = new java.util.ArrayList<>();
      cmd.add(python.toString());
      cmd.addAll(OPTIONS);
      cmd.addAll(List.of("-c", PROBE, client.toString()));
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
      pb.environment().clear();
      Process p = pb.start();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return python + " did not answer within 10 s";
      }
      List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
      if (p.exitValue() != 0 || lines.isEmpty() || !lines.get(0).startsWith("ok ")) {
        String why = lines.isEmpty() ? "" : dev.colony.text.Printable.line(lines.get(lines.size() - 1), 200);
        return python + " cannot run the client (exit " + p.exitValue() + (why.isEmpty() ? "" : ": " + why) + ")";
      }
      for (String line : lines.subList(1, lines.size())) {
        if (!line.startsWith("/")) {
          continue;
        }
        Path loaded;
        try {
          loaded = Path.of(line);
        } catch (java.nio.file.InvalidPathException e) {
          continue;
        }
        // A file of the worker's disk (not a deleted or anonymous mapping).
        if (Files.isRegularFile(loaded) && !shows.test(loaded.toRealPath())) {
          return python + " loads " + loaded + ", which a sandbox does not show";
        }
      }
      return null;
    } catch (IOException | RuntimeException e) {
      return python + " cannot run the client: " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted while checking " + python;
    } finally {
      if (out != null) {
        try {
          Files.deleteIfExists(out);
        } catch (IOException ignored) {
          // the channel's directory goes with the channel
        }
      }
    }
  }
}
