package dev.colony.cli;

import dev.colony.board.TemporalTaskBoard;
import dev.colony.client.TemporalColonySource;
import dev.colony.client.TemporalMergeSource;
import dev.colony.config.LoadedColony;
import dev.colony.mcp.ColonyMcp;
import dev.colony.mcp.StdioGuard;
import dev.colony.secrets.Secrets;
import dev.colony.task.TaskSettings;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code colony mcp}: the colony as an MCP server over stdio (docs/mcp.md), for an agent host
 * that starts it ({@code claude mcp add colony -- ./colony mcp --dir my-colony}). Standard output
 * carries the protocol's messages only: everything else this process would print goes to standard
 * error. It keeps no state (every answer is read from Temporal, every change a signal or an
 * update), so it needs no worker to read; the ant's verbs wait for none either.
 */
@Command(name = "mcp", mixinStandardHelpOptions = true,
    description = "Serve the colony to an AI agent as an MCP server over stdio: its ants, inbox, costs, tasks and merge "
        + "queues as tools, steering recorded as mcp:<client> in the ants' histories; with the colony directory "
        + "(--dir) on a worker's machine, the sessions' transcripts too. Started by the agent host, e.g. "
        + "claude mcp add colony -- /path/to/colony mcp --dir my-colony",
    footerHeading = "%nExamples:%n",
    footer = {"  claude mcp add colony -- /path/to/colony mcp --dir my-colony",
        "  colony mcp --colony hello --address temporal.example.com:7233"})
final class McpCommand implements Callable<Integer> {
  @Mixin
  ColonyChoice choice;

  @Override
  public Integer call() throws InterruptedException {
    // stdout is the protocol's alone, written as the SDK writes it: every answer is redacted value by
    // value before it is sent, and the text redactor on a whole JSON line would rewrite the protocol
    // itself (a referenced value "true" or "2025" inside it). Whatever else would write to
    // System.out (a library, a stray print) goes to stderr, through the redactor.
    PrintStream protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
    System.setOut(System.err);
    String colony = choice.colonyName();
    // With --colony alone no config is loaded: the environment's secret-looking values are still masked.
    Secrets.process().registerSecretLookingNames(System.getenv());
    Temporal t = Temporal.connect(choice.temporal);
    CountDownLatch stopped = new CountDownLatch(1);
    McpSyncServer server;
    try {
      TemporalColonySource source = new TemporalColonySource(t.client, colony, null);
      ColonyMcp mcp = new ColonyMcp(source, new TemporalTaskBoard(source.client(), colony, TaskSettings.defaults()),
          new TemporalMergeSource(source.client(), colony, ColonyMcp.SURFACE), Secrets.process(), System.getenv("USER"));
      transcripts(mcp, colony);
      // One bad line from the client is answered as the protocol's error, not the end of the session.
      StdioServerTransportProvider transport = new StdioServerTransportProvider(ColonyMcp.jsonMapper(),
          new StdioGuard(new FileInputStream(FileDescriptor.in), protocol, ColonyMcp.jsonMapper(), stopped::countDown),
          protocol);
      server = mcp.serve(transport, ColonyMcp.class.getPackage().getImplementationVersion());
    } catch (RuntimeException e) {
      t.close();
      throw e;
    }
    System.err.println("colony '" + colony + "': MCP server on stdio (Temporal " + t.address + ", namespace "
        + t.namespace + ")");
    Thread hook = new Thread(() -> {
      server.close();
      t.close();
    }, "colony-mcp-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    // The transport reads standard input on its own thread: the server ends when the client closes it.
    stopped.await();
    return 0;
  }

  /**
   * With the colony directory ({@code --dir}, or the current one holding the colony's colony.yaml),
   * the server reads the sessions' transcripts the workers of this machine write there, redacted
   * with the colony's secrets (its config is loaded for them). Without it, or with the directory of
   * another colony, a transcript's read says where it lives.
   */
  private void transcripts(ColonyMcp mcp, String colony) {
    Path dir = choice.directory();
    if (dir == null) {
      return; // the default: "started without the colony directory"
    }
    LoadedColony loaded;
    try {
      loaded = choice.config("no colony.yaml in " + dir);
    } catch (UserError e) {
      System.err.println("colony mcp: no transcripts served: " + Secrets.process().redact(e.getMessage()));
      mcp.noTranscripts("this server could not load its colony directory, so it reads no transcript");
      return;
    }
    if (!loaded.colony().name().equals(colony)) {
      mcp.noTranscripts("this server's directory holds colony '" + loaded.colony().name() + "', not this one, so it "
          + "reads no transcript");
      return;
    }
    mcp.transcriptsIn(Path.of(loaded.colony().dir()));
  }
}
