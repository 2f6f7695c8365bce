package dev.colony.engine.claude;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stand-in for the {@code claude} CLI (JDK only). Reads {@code $FAKE_CLAUDE_DIR/script.jsonl}
 * and prints it as stream-json output; directives: {@code #exit N}, {@code #sleep MS},
 * {@code #stderr TEXT}, {@code #await-user} (wait for a user message on stdin, kept in
 * {@code user-messages.jsonl}). After printing a {@code control_request} it waits for the matching
 * {@code control_response} on stdin and records it in {@code decisions.txt}. Records its
 * arguments in {@code args.txt} and the first stdin line (the prompt message) in {@code prompt.json}.
 */
public final class FakeClaude {
  /** Writes an executable {@code claude} wrapper that runs this class with the test classpath. */
  public static Path install(Path dir) throws IOException {
    Path bin = dir.resolve("claude");
    String java = ProcessHandle.current().info().command().orElse("java");
    // Only its own classes (it needs nothing but the JDK): the directory it runs from is what a
    // sandboxed session is granted (sandboxYaml).
    Files.writeString(bin, "#!/bin/sh\nexec '" + java + "' -XX:TieredStopAtLevel=1 -cp '"
        + classes() + "' dev.colony.engine.claude.FakeClaude \"$@\"\n");
    Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwxr-xr-x"));
    return bin;
  }

  /** Where this class was loaded from (the test classes directory). */
  static Path classes() {
    try {
      return Path.of(FakeClaude.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The {@code sandbox:} block of an ant that runs this fake in its walls: its variable, its
   * classes (read) and its directory (where it reads its script and writes what it saw).
   */
  public static String sandboxYaml(Path dir) {
    return "sandbox:\n  secrets: [FAKE_CLAUDE_DIR]\n  read: [\"" + classes() + "\"]\n  write: [\"" + dir + "\"]\n";
  }

  private static final Pattern REQUEST_ID = Pattern.compile("\"request_id\"\\s*:\\s*\"([^\"]+)\"");

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(System.getenv("FAKE_CLAUDE_DIR"));
    Files.write(dir.resolve("args.txt"), List.of(args));
    if (List.of(args).contains("--dangerously-skip-permissions") && "root".equals(System.getProperty("user.name"))) {
      // as the real CLI does
      System.err.println("--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons");
      System.exit(1);
    }
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String first = in.readLine();
    Files.writeString(dir.resolve("prompt.json"), first == null ? "" : first);
    for (String line : Files.readAllLines(dir.resolve("script.jsonl"))) {
      if (line.isBlank()) {
        continue;
      }
      if (line.startsWith("#exit ")) {
        System.out.flush();
        System.exit(Integer.parseInt(line.substring(6).trim()));
      } else if (line.startsWith("#sleep ")) {
        Thread.sleep(Long.parseLong(line.substring(7).trim())); // not a wait: the scripted agent takes its time
      } else if (line.startsWith("#await-user")) {
        // A user message mid-session (a supervisor's whisper): record it and go on.
        String l;
        while ((l = in.readLine()) != null) {
          if (l.contains("\"type\":\"user\"")) {
            Files.writeString(dir.resolve("user-messages.jsonl"), l + "\n", StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
            break;
          }
        }
      } else if (line.startsWith("#stderr ")) {
        System.err.println(line.substring(8));
        System.err.flush();
      } else {
        System.out.println(line);
        System.out.flush();
        if (line.contains("\"control_request\"")) {
          Matcher m = REQUEST_ID.matcher(line);
          String id = m.find() ? m.group(1) : "";
          awaitResponse(in, id, dir);
        }
      }
    }
    // Like the real CLI in stream-json input mode: wait for the caller to close stdin.
    long end = System.currentTimeMillis() + 10_000;
    while (System.currentTimeMillis() < end && in.readLine() != null) {
      // drain
    }
  }

  private static void awaitResponse(BufferedReader in, String id, Path dir) throws IOException {
    String line;
    while ((line = in.readLine()) != null) {
      if (line.contains("\"control_response\"") && line.contains("\"" + id + "\"")) {
        Files.writeString(dir.resolve("decisions.txt"), line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        return;
      }
    }
  }
}
