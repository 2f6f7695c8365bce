package dev.colony.session.impl;

import static dev.colony.testing.Eventually.DEFAULT;
import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.ant.AntRun;
import dev.colony.ant.AntStats;
import dev.colony.ant.AntWorkflow;
import dev.colony.ant.AntWorkflowImpl;
import dev.colony.autonomy.Decide;
import dev.colony.chat.ChatPost;
import dev.colony.chat.impl.ChatActivitiesImpl;
import dev.colony.config.ColonyLoader;
import dev.colony.config.LoadedColony;
import dev.colony.engine.claude.FakeClaude;
import dev.colony.workspace.impl.WorkspaceActivitiesImpl;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Both engines end to end: a colony directory loaded by the real loader, AntWorkflow with the
 * real session, workspace and chat activities, the fake claude process and the fake Gemini API.
 */
@Timeout(180)
class EngineEndToEndTest {
  @TempDir
  Path dir;

  private TestWorkflowEnvironment env;
  private final List<String> posts = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    if (env != null) {
      env.close();
    }
  }

  private AntWorkflow start(String antYaml, String dotenv, String ant) throws Exception {
    Files.writeString(dir.resolve("colony.yaml"), "name: e2e\ndefaults:\n  poll_interval: 1h\n");
    Files.createDirectories(dir.resolve("ants"));
    Files.writeString(dir.resolve("ants/" + ant + ".yaml"), antYaml);
    Files.writeString(dir.resolve(".env"), dotenv);
    LoadedColony colony = ColonyLoader.load(dir);
    var spec = colony.ant(ant).orElseThrow();
    env = TestWorkflowEnvironment.newInstance();
    dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
    Worker worker = env.newWorker("q");
    worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class);
    worker.registerActivitiesImplementations(
        SessionActivitiesImpl.withDefaultEngines((ChatPost p) -> posts.add(p.text()), new PrintStream(PrintStream.nullOutputStream())),
        new WorkspaceActivitiesImpl(), new ChatActivitiesImpl((ChatPost p) -> posts.add(p.text())));
    env.start();
    AntWorkflow stub = env.getWorkflowClient().newWorkflowStub(AntWorkflow.class,
        WorkflowOptions.newBuilder().setWorkflowId(spec.workflowId()).setTaskQueue("q").build());
    WorkflowClient.start(stub::run, new AntRun(spec, null));
    return stub;
  }

  @Test
  void aClaudeSessionWithAHumanApprovalGoesThroughTheWholeStack() throws Exception {
    Path fake = Files.createDirectories(dir.resolve("fake"));
    Path bin = FakeClaude.install(fake);
    Files.write(fake.resolve("script.jsonl"), List.of(
        "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"sess-e2e\"}",
        "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"Pushing the fix.\"}]}}",
        "{\"type\":\"control_request\",\"request_id\":\"p1\",\"request\":{\"subtype\":\"can_use_tool\",\"tool_name\":\"Bash\",\"input\":{\"command\":\"git push origin fix\"}}}",
        "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"num_turns\":7,\"total_cost_usd\":0.42,"
            + "\"usage\":{\"input_tokens\":5000,\"output_tokens\":800},\"result\":\"Fix pushed.\",\"session_id\":\"sess-e2e\"}"));
    AntWorkflow ant = start("""
        name: fixer
        description: fixes bugs
        instructions: fix the bug
        engine: claude
        """ + FakeClaude.sandboxYaml(fake), "COLONY_CLAUDE_BIN=" + bin + "\nFAKE_CLAUDE_DIR=" + fake + "\nANTHROPIC_API_KEY=sk-test\n", "fixer");
    eventually(DEFAULT, () -> ant.status().confirmations().size() == 1, () -> "ant.status().confirmations().size() == 1" + "; posts: " + posts);
    eventually(DEFAULT, () -> posts.stream().anyMatch(p -> p.startsWith("⚙️ **fixer** wants to use Bash")), () -> "posts.stream().anyMatch(p -> p.startsWith(\"⚙️ **fixer** wants to use Bash\"))" + "; posts: " + posts);
    ant.decide(new Decide(null, true, "dana", null));
    eventually(DEFAULT, () -> posts.contains("✅ **fixer** finished session 1: Fix pushed"), () -> "posts.contains(\"✅ **fixer** finished session 1: Fix pushed\")" + "; posts: " + posts);
    assertTrue(Files.readString(fake.resolve("decisions.txt")).contains("\"behavior\":\"allow\""));
    assertTrue(posts.contains("Pushing the fix."), "narration reached the channel");
    AntStats stats = ant.stats();
    assertEquals(7, stats.turns());
    assertEquals(0.42, stats.costUsd(), 1e-9);
    assertTrue(stats.costReported());
    assertEquals(5000, stats.inputTokens());
    assertTrue(Files.readString(fake.resolve("prompt.json")).contains("fix the bug"), "the assembled prompt reached the CLI");
  }

  @Test
  void aGeminiSessionGoesThroughTheWholeStack() throws Exception {
    try (var api = new dev.colony.engine.gemini.FakeGeminiServerAccess()) {
      api.reply(200, "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"write_file\","
          + "\"args\":{\"path\":\"notes.md\",\"content\":\"# Findings\"}}}]}}],\"usageMetadata\":{\"promptTokenCount\":10,\"candidatesTokenCount\":5}}");
      api.reply(200, "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Notes written.\"}]}}],"
          + "\"usageMetadata\":{\"promptTokenCount\":20,\"candidatesTokenCount\":5}}");
      AntWorkflow ant = start("""
          name: researcher
          description: researches
          instructions: write notes
          engine: gemini
          """, "GEMINI_API_KEY=g-test\nGEMINI_BASE_URL=" + api.baseUrl() + "\n", "researcher");
      eventually(DEFAULT, () -> posts.contains("✅ **researcher** finished session 1: Notes written"), () -> "posts.contains(\"✅ **researcher** finished session 1: Notes written\")" + "; posts: " + posts);
      assertEquals("# Findings", Files.readString(dir.resolve(".colony/workspaces/researcher/notes.md")));
      assertEquals(2, ant.stats().turns());
      assertEquals(30, ant.stats().inputTokens());
      // No overseer, yet the turns reached the workflow (the console reads them from the history).
      List<String> reported = new java.util.ArrayList<>();
      for (var e : env.getWorkflowClient().fetchHistory("ant/e2e/researcher").getEvents()) {
        if (e.hasWorkflowExecutionUpdateAcceptedEventAttributes()) {
          var input = e.getWorkflowExecutionUpdateAcceptedEventAttributes().getAcceptedRequest().getInput();
          assertEquals("reportTurns", input.getName());
          var report = io.temporal.common.converter.DefaultDataConverter.STANDARD_INSTANCE.fromPayload(
              input.getArgs().getPayloads(0), dev.colony.overseer.TurnReport.class, dev.colony.overseer.TurnReport.class);
          assertEquals(1, report.session());
          report.turns().forEach(t -> reported.add(t.kind() + ":" + (t.name() == null ? t.input() : t.name())));
        }
      }
      assertTrue(reported.contains("tool:write_file"), reported.toString());
      assertTrue(reported.contains("text:Notes written."), reported.toString());
    }
  }
}
