package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.fakes.FakeAnthropic;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real Claude Code CLI (the pinned {@code @anthropic-ai/claude-code} that bin/claude.sh
 * installs into .tools/) in an ant's sandbox, on the real dev server with its worker a separate
 * process, against the fake Anthropic API: the CLI starts, sends the ant's prompt, gets tool
 * calls (a Bash command Colony's tool gate lets through, a Write it holds for a human's
 * {@code colony approve}), runs them in the workspace inside the walls, and ends with a result
 * whose turns and cost Colony records.
 */
@Timeout(600)
class ClaudeCliIT {
  private static final Path FIXTURE = Path.of("src/test/resources/claude-colony").toAbsolutePath();
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @TempDir
  Path tmp;

  private Cluster cluster;

  @AfterEach
  void tearDown() throws Exception {
    Cluster.closeAll(cluster);
  }

  @Test
  void theRealClaudeCliRunsASessionInsideItsSandboxAgainstTheFakeApi() throws Exception {
    String claude = claudeCli();
    try (FakeAnthropic api = new FakeAnthropic().requireKey("sk-ant-colony-test")) {
      cluster = new Cluster(tmp, FIXTURE).startServer("dev");
      Path workspace = cluster.dir.resolve(".colony/workspaces/coder");
      api.then(FakeAnthropic.Turn.toolUse("Bash", Map.of(
              "command", "echo hi > hi.txt && id -u > uid.txt && hostname > host.txt",
              "description", "Write hi.txt")),
          FakeAnthropic.Turn.toolUse("Write", Map.of("file_path", workspace.resolve("notes.md").toString(),
              "content", "# Notes\n")),
          FakeAnthropic.Turn.text("Wrote hi.txt."));
      // The ant's sandbox is the default one: no network but its engine's API host, which is the
      // fake's 127.0.0.1:PORT (ANTHROPIC_BASE_URL), reached through the worker's egress proxy.
      Files.createDirectories(cluster.dir.resolve("ants"));
      Files.writeString(cluster.dir.resolve("ants/coder.yaml"), """
          name: coder
          description: writes files with the real Claude Code CLI
          instructions: Write the word hi to hi.txt.
          engine: claude
          confirmation:
            always_confirm_tools: [Write]
          """);
      Files.writeString(cluster.dir.resolve(".env"), "COLONY_CLAUDE_BIN=" + claude + "\n"
          + "ANTHROPIC_BASE_URL=" + api.url() + "\n"
          + "ANTHROPIC_API_KEY=sk-ant-colony-test\n"
          // Only the API's host: no feature flags or metrics from the CLI's own hosts.
          + "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1\n");
      try {
        cluster.startWorker("w1");
        long sent = System.nanoTime();
        cluster.cli("start", cluster.dir.toString()); // its first session starts at once
        // Bash runs unasked (nothing dangerous); Write waits for a human through Colony's tool gate.
        eventually(Duration.ofSeconds(120), () -> status().contains("waiting for you:    #"),
            () -> "the Write waits for a human; status: " + status() + "\nrequests: " + describe(api));
        assertTrue(Files.exists(workspace.resolve("hi.txt")), "the Bash call ran before the Write was asked");
        assertTrue(!Files.exists(workspace.resolve("notes.md")), "the Write waits");
        cluster.cli("approve", "real/coder");
        eventually(Duration.ofSeconds(180), () -> status().contains("last outcome:       success"),
            () -> "the session ended with success; status: " + status() + "\nrequests: " + describe(api));
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent);
        System.out.println("ClaudeCliIT: the session took " + took + " ms from `colony start` to its success");

        // The tool call ran in the workspace, inside the walls (the sandbox's user and host name).
        assertEquals("hi", Cluster.read(workspace.resolve("hi.txt")).strip());
        assertEquals("1000", Cluster.read(workspace.resolve("uid.txt")).strip(), "the sandbox's unprivileged user");
        assertEquals("coder", Cluster.read(workspace.resolve("host.txt")).strip(), "the sandbox's host name");

        // What the CLI sent: the ant's prompt with the key, then the tool's result.
        List<FakeAnthropic.Request> turns = api.agentTurns();
        assertEquals(3, turns.size(), describe(api));
        assertTrue(turns.get(0).allText().contains("Write the word hi to hi.txt."), turns.get(0).allText());
        assertTrue(turns.get(0).body().path("stream").asBoolean(), "the CLI streams");
        assertTrue(turns.get(1).allText().contains("tool_result"), turns.get(1).allText());
        assertEquals("# Notes\n", Cluster.read(workspace.resolve("notes.md")), "the approved Write ran");
        assertTrue(api.requests.stream().allMatch(r -> r.path().startsWith("/api/")
            || "sk-ant-colony-test".equals(r.apiKey())), describe(api));
        assertEquals(0, api.pending());
        assertTrue(status().contains("sessions:           1\n"), status());

        // Colony recorded the session's turns and cost from the CLI's result.
        String status = status();
        assertTrue(status.contains("turns:              3"), status);
        Matcher cost = Pattern.compile("cost since start:\\s+\\$(\\d+\\.\\d+)").matcher(status);
        assertTrue(cost.find() && Double.parseDouble(cost.group(1)) > 0, status);
        assertTrue(status.contains("tokens in/out:      300 / "), status);

        // The CLI kept its state in the ant's private home, not the worker's.
        assertTrue(Files.isDirectory(cluster.dir.resolve(".colony/sandbox/homes/coder/.claude")),
            "the CLI's ~/.claude is in the ant's sandbox home");
        String transcript;
        try (var files = Files.walk(cluster.dir.resolve(".colony/transcripts"))) {
          transcript = Cluster.read(files.filter(f -> f.toString().contains("coder") && Files.isRegularFile(f))
              .findFirst().orElseThrow());
        }
        String result = transcript.lines().filter(l -> l.contains("\"type\":\"result\"")).findFirst().orElse("");
        Matcher ms = Pattern.compile("\"duration_ms\":(\\d+)").matcher(result);
        System.out.println("ClaudeCliIT: the CLI ran " + (ms.find() ? ms.group(1) : "?") + " ms by its own result");
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + "\n" + cluster.diagnostics(), e);
      }
    }
  }

  private String status() {
    try {
      return cluster.cli("status", "real/coder");
    } catch (Exception e) {
      return "(status failed: " + e.getMessage() + ")";
    }
  }

  private static String describe(FakeAnthropic api) {
    StringBuilder sb = new StringBuilder();
    for (FakeAnthropic.Request r : api.requests) {
      sb.append('\n').append(r.method()).append(' ').append(r.path()).append(r.agentTurn() ? " (agent turn)" : "");
    }
    return sb.toString();
  }

  /**
   * The CLI the test runs: $COLONY_TEST_CLAUDE_BIN (./run-tests sets it), else what bin/claude.sh
   * finds or installs. None is a failure naming bin/claude.sh, never a skip.
   */
  static String claudeCli() throws IOException, InterruptedException {
    String configured = System.getenv("COLONY_TEST_CLAUDE_BIN");
    if (configured != null && Files.isExecutable(Path.of(configured))) {
      return configured;
    }
    ProcessBuilder pb = new ProcessBuilder("bash", ROOT.resolve("bin/claude.sh").toString()).directory(ROOT.toFile());
    pb.environment().remove("COLONY_CLAUDE_BIN");
    Path err = Files.createTempFile("claude-sh", ".log");
    pb.redirectError(err.toFile());
    Process p = pb.start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0 || out.isEmpty()) {
      p.destroyForcibly();
      throw new AssertionError("no Claude Code CLI: bin/claude.sh (installs the pinned @anthropic-ai/claude-code "
          + "from npm into .tools/; ./run-tests does it) failed: " + Files.readString(err).strip());
    }
    Files.deleteIfExists(err);
    return out.lines().reduce((a, b) -> b).orElseThrow();
  }
}
