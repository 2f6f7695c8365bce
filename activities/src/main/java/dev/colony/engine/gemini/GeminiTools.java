package dev.colony.engine.gemini;

import com.google.genai.types.FunctionDeclaration;
import com.google.genai.types.Schema;
import dev.colony.engine.Narrator;
import dev.colony.engine.Processes;
import dev.colony.toolgate.ToolGate;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Stream;

/**
 * The tools a Gemini ant works with, all confined to its workspace: run a shell command, read,
 * write and edit files, list and search them, and post to its channel. Every call passes through
 * the ant's {@link ToolGate} first, exactly as Claude Code's tool calls do.
 */
final class GeminiTools {
  static final int OUTPUT_LIMIT = 20_000;
  private static final long SHELL_TIMEOUT_MINUTES = 10;

  private final Path workspace;
  private final ToolGate gate;
  private final Narrator narrator;

  private final dev.colony.sandbox.Confinement confinement;
  private final java.util.Map<String, String> env;

  GeminiTools(Path workspace, ToolGate gate, Narrator narrator) {
    this(workspace, gate, narrator, dev.colony.sandbox.Confinement.NONE, java.util.Map.of());
  }

  /** @param confinement the walls its shell commands run in, with {@code env} as their whole environment */
  GeminiTools(Path workspace, ToolGate gate, Narrator narrator, dev.colony.sandbox.Confinement confinement,
      java.util.Map<String, String> env) {
    this.confinement = confinement;
    this.env = env;
    this.workspace = workspace.toAbsolutePath().normalize();
    this.gate = gate;
    this.narrator = narrator;
  }

  static List<FunctionDeclaration> declarations() {
    return List.of(
        fn("run_shell", "Run a shell command (sh -c) in the workspace; returns exit code and output.",
            Map.of("command", str("The command line to run.")), "command"),
        fn("read_file", "Read a text file of the workspace.", Map.of("path", str("Path relative to the workspace.")), "path"),
        fn("write_file", "Create or overwrite a file of the workspace.",
            Map.of("path", str("Path relative to the workspace."), "content", str("The full new content.")), "path", "content"),
        fn("edit_file", "Replace one exact occurrence of old_text with new_text in a file.",
            Map.of("path", str("Path relative to the workspace."), "old_text", str("Text to find, exactly once."),
                "new_text", str("Replacement.")), "path", "old_text", "new_text"),
        fn("list_files", "List files under a directory of the workspace (recursive, up to 500).",
            Map.of("path", str("Directory relative to the workspace; '.' for all.")), "path"),
        fn("search_files", "Search file contents with a regular expression; returns path:line: text.",
            Map.of("pattern", str("Java regular expression."), "path", str("Directory to search; '.' for all.")), "pattern"),
        fn("notify_discord", "Post a short message to your humans' channel (milestones, questions, blockers).",
            Map.of("message", str("The message.")), "message"));
  }

  private static FunctionDeclaration fn(String name, String description, Map<String, Schema> props, String... required) {
    return FunctionDeclaration.builder().name(name).description(description)
        .parameters(Schema.builder().type("OBJECT").properties(new LinkedHashMap<>(props)).required(List.of(required)))
        .build();
  }

  private static Schema str(String description) {
    return Schema.builder().type("STRING").description(description).build();
  }

  /** Runs one call and returns the response object the model sees. */
  Map<String, Object> call(String name, Map<String, Object> args) {
    Map<String, Object> a = args == null ? Map.of() : args;
    ToolGate.Verdict verdict = gate.check(name, a);
    if (!verdict.allowed()) {
      narrator.toolUsed(name, describe(name, a), "blocked: " + verdict.message(), true);
      return Map.of("error", verdict.message());
    }
    Map<String, Object> result;
    try {
      result = switch (name) {
        case "run_shell" -> shell(text(a, "command"));
        case "read_file" -> Map.of("content", clip(read(text(a, "path"))));
        case "write_file" -> write(text(a, "path"), text(a, "content"));
        case "edit_file" -> edit(text(a, "path"), text(a, "old_text"), text(a, "new_text"));
        case "list_files" -> Map.of("files", list(a.getOrDefault("path", ".").toString()));
        case "search_files" -> Map.of("matches", search(text(a, "pattern"), a.getOrDefault("path", ".").toString()));
        case "notify_discord" -> {
          narrator.notifyChannel(text(a, "message"));
          yield Map.of("posted", true);
        }
        default -> Map.of("error", "unknown tool " + name);
      };
    } catch (IOException | IllegalArgumentException e) {
      result = Map.of("error", e.getMessage() == null ? e.toString() : e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      result = Map.of("error", "interrupted");
    }
    if (!"notify_discord".equals(name)) {
      Object err = result.get("error");
      narrator.toolUsed(name, describe(name, a), err != null ? err.toString() : summary(result), err != null);
    }
    if (verdict.message() != null) {
      // the note of the human who approved the call, in the response the model reads
      result = new java.util.LinkedHashMap<>(result);
      result.put("approval_note", verdict.message());
    }
    return result;
  }

  static String describe(String name, Map<String, Object> a) {
    if (a.get("command") != null) {
      return "`" + a.get("command") + "`";
    }
    return a.get("path") == null ? "" : a.get("path").toString();
  }

  static String summary(Map<String, Object> result) {
    Object out = result.getOrDefault("output", result.getOrDefault("content", result.get("files")));
    return out == null ? result.toString() : out.toString();
  }

  private static String text(Map<String, Object> a, String key) {
    Object v = a.get(key);
    if (v == null) {
      throw new IllegalArgumentException("missing argument '" + key + "'");
    }
    return v.toString();
  }

  /** A workspace path; anything resolving outside the workspace is refused. */
  Path resolve(String relative) {
    Path p = workspace.resolve(relative).toAbsolutePath().normalize();
    if (!p.startsWith(workspace)) {
      throw new IllegalArgumentException("path '" + relative + "' is outside the workspace");
    }
    return p;
  }

  private Map<String, Object> shell(String command) throws IOException, InterruptedException {
    Process p = Processes.start(confinement.processFor(List.of("/bin/sh", "-c", command), env, java.util.Map.of(), workspace)
        .redirectErrorStream(true));
    p.getOutputStream().close();
    byte[] out = p.getInputStream().readNBytes(OUTPUT_LIMIT * 4);
    if (!p.waitFor(SHELL_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
      Processes.killTree(p);
      return Map.of("exit_code", -1, "output", clip(new String(out, StandardCharsets.UTF_8)) + "\n[killed after " + SHELL_TIMEOUT_MINUTES + " minutes]");
    }
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("exit_code", p.exitValue());
    r.put("output", clip(new String(out, StandardCharsets.UTF_8)));
    return r;
  }

  // The file tools run inside the session's walls, as the agent's own processes: a path the agent
  // made a symbolic link (to the worker's home, another workspace) resolves where the agent stands,
  // never where the worker does; and nothing the agent swaps in between a check and a read helps.

  /** A process in the walls, in the workspace: its exit code and its output (bounded). */
  private record Ran(int exit, byte[] out, String err) {}

  private Ran inWalls(List<String> argv, byte[] stdin) throws IOException, InterruptedException {
    ProcessBuilder pb = confinement.processFor(argv, env, java.util.Map.of(), workspace);
    Process p = Processes.start(pb);
    java.util.concurrent.CompletableFuture<byte[]> err = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
      try {
        return p.getErrorStream().readNBytes(4096);
      } catch (IOException e) {
        return new byte[0];
      }
    });
    try (var in = p.getOutputStream()) {
      if (stdin != null) {
        in.write(stdin);
      }
    } catch (IOException closedEarly) {
      // the process ended before reading all of it: its exit code says why
    }
    byte[] out = p.getInputStream().readNBytes(FILE_LIMIT + 1);
    if (!p.waitFor(SHELL_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
      Processes.killTree(p);
      throw new IOException("killed after " + SHELL_TIMEOUT_MINUTES + " minutes");
    }
    Processes.killTree(p);
    return new Ran(p.exitValue(), out, new String(err.join(), StandardCharsets.UTF_8).strip());
  }

  /** The most bytes a file tool reads or writes. */
  static final int FILE_LIMIT = 4 * 1024 * 1024;

  private String read(String path) throws IOException, InterruptedException {
    resolve(path);
    Ran r = inWalls(List.of("cat", "--", path), null);
    if (r.exit() != 0) {
      throw new IOException(r.err().isEmpty() ? "cannot read " + path : r.err().replace("cat: ", ""));
    }
    return new String(r.out(), 0, Math.min(r.out().length, FILE_LIMIT), StandardCharsets.UTF_8);
  }

  private Map<String, Object> write(String path, String content) throws IOException, InterruptedException {
    resolve(path);
    byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > FILE_LIMIT) {
      throw new IllegalArgumentException("content over " + FILE_LIMIT + " bytes");
    }
    Ran r = inWalls(List.of("/bin/sh", "-c", "mkdir -p -- \"$(dirname -- \"$1\")\" && cat > \"$1\"", "write_file", path), bytes);
    if (r.exit() != 0) {
      throw new IOException(r.err().isEmpty() ? "cannot write " + path : r.err());
    }
    return Map.of("written", path, "bytes", bytes.length);
  }

  private Map<String, Object> edit(String path, String oldText, String newText) throws IOException, InterruptedException {
    String content = read(path);
    int first = content.indexOf(oldText);
    if (first < 0) {
      return Map.of("error", "old_text not found in " + path);
    }
    if (content.indexOf(oldText, first + 1) >= 0) {
      return Map.of("error", "old_text occurs more than once in " + path + "; include more context");
    }
    write(path, content.substring(0, first) + newText + content.substring(first + oldText.length()));
    return Map.of("edited", path);
  }

  private List<String> list(String dir) throws IOException, InterruptedException {
    resolve(dir);
    Ran r = inWalls(List.of("find", dir, "-path", "*/.git", "-prune", "-o", "-type", "f", "-print0"), null);
    List<String> out = new ArrayList<>();
    for (String f : new String(r.out(), StandardCharsets.UTF_8).split("\0")) {
      if (!f.isEmpty() && out.size() < 500) {
        out.add(workspace.relativize(workspace.resolve(f).normalize()).toString());
      }
    }
    if (r.exit() != 0 && out.isEmpty()) {
      throw new IOException(r.err().isEmpty() ? "cannot list " + dir : r.err().replace("find: ", ""));
    }
    return out.stream().sorted().toList();
  }

  /** grep -P (Perl-compatible, as close to Java's syntax as a tool has), checked as Java first. */
  private List<String> search(String regex, String dir) throws IOException, InterruptedException {
    try {
      Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      throw new IllegalArgumentException("invalid pattern: " + e.getDescription());
    }
    resolve(dir);
    Ran r = inWalls(List.of("grep", "-rnIP", "--exclude-dir=.git", "-m", "200", "-e", regex, "--", dir), null);
    if (r.exit() > 1) {
      throw new IOException(r.err().isEmpty() ? "search failed" : r.err().replace("grep: ", ""));
    }
    List<String> hits = new ArrayList<>();
    for (String line : new String(r.out(), StandardCharsets.UTF_8).split("\n")) {
      int a = line.indexOf(':');
      int b = a < 0 ? -1 : line.indexOf(':', a + 1);
      if (b > 0 && hits.size() < 200) {
        String rel = workspace.relativize(workspace.resolve(line.substring(0, a)).normalize()).toString();
        hits.add(rel + ":" + line.substring(a + 1, b) + ": " + line.substring(b + 1).strip());
      }
    }
    return hits;
  }

  static String clip(String s) {
    return s.length() <= OUTPUT_LIMIT ? s : s.substring(0, OUTPUT_LIMIT) + "\n[truncated, " + (s.length() - OUTPUT_LIMIT) + " more characters]";
  }
}
