package dev.colony.cli;

import dev.colony.engine.Processes;
import io.grpc.StatusRuntimeException;
import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The real Temporal server, {@code temporal server start-dev}, as a child process: SQLite
 * persistence, the Web UI, visibility with Colony's search attributes. It never outlives Colony:
 * it is stopped on exit and, on Linux, killed by the kernel if Colony dies without a goodbye.
 */
final class DevServer implements LocalServer {
  private static final Duration READY_WITHIN = Duration.ofSeconds(60);

  private final Process process;
  private final int port;
  private final int uiPort;
  private final Path db;
  private final Path log;
  private volatile boolean closing;

  private DevServer(Process process, int port, int uiPort, Path db, Path log) {
    this.process = process;
    this.port = port;
    this.uiPort = uiPort;
    this.db = db;
    this.log = log;
  }

  /** The command line, without the tie to this process. */
  static List<String> argv(TemporalCli cli, int port, int uiPort, Path db) {
    List<String> argv = new ArrayList<>(List.of(cli.path().toString(), "server", "start-dev",
        "--ip", "127.0.0.1", "--port", Integer.toString(port), "--ui-port", Integer.toString(uiPort),
        "--namespace", "default", "--log-level", "warn", "--ui-disable-news-fetch"));
    if (db != null) {
      argv.add("--db-filename");
      argv.add(db.toString());
      // Write-ahead logging: a commit appends to the log instead of rewriting pages through a
      // rollback journal, and readers (visibility lists) no longer block the writer. With
      // synchronous=normal a commit survives any crash of the server process (kill -9 included);
      // only a power cut can lose the last moments, never the file's integrity.
      argv.addAll(List.of("--sqlite-pragma", "journal_mode=wal", "--sqlite-pragma", "synchronous=normal"));
    }
    // The history service reads new tasks (a workflow task after a signal, an activity task)
    // back from its transfer queue at most 20 times a second by default: a signal that came right
    // after another waited up to 50 ms before its workflow task reached a worker, and pause took
    // about 50 ms from signal to post instead of about 11. It reads only when told a task is new.
    argv.addAll(List.of("--dynamic-config-value", "history.transferProcessorMaxPollRPS=1000"));
    for (var key : SearchAttributeSetup.ALL) {
      argv.add("--search-attribute");
      argv.add(key.getName() + "=" + typeName(key.getValueType()));
    }
    return argv;
  }

  /** "INDEXED_VALUE_TYPE_KEYWORD" -> "Keyword", as {@code --search-attribute} spells types. */
  static String typeName(io.temporal.api.enums.v1.IndexedValueType t) {
    String s = t.name().substring("INDEXED_VALUE_TYPE_".length());
    return switch (s) {
      case "KEYWORD_LIST" -> "KeywordList";
      default -> s.charAt(0) + s.substring(1).toLowerCase(Locale.ROOT);
    };
  }

  /**
   * Starts the server and returns once it serves the default namespace.
   *
   * @param db the SQLite file, or null to keep state in memory
   */
  static DevServer start(TemporalCli cli, int port, int uiPort, Path db, Path log) {
    EmbeddedServer.requireFree(port, "--port");
    EmbeddedServer.requireFree(uiPort, "--ui-port");
    try {
      Files.createDirectories(log.getParent());
      if (db != null) {
        Files.createDirectories(db.toAbsolutePath().getParent());
      }
    } catch (IOException e) {
      throw new UserError("cannot create " + log.getParent() + ": " + e.getMessage());
    }
    try {
      return launch(cli, port, uiPort, db, log);
    } catch (ExitedEarly first) {
      // Seen in CI: the dev server's internal worker service lost its listener to another process
      // ("Failed to serve on worker listener") and exited. A second start picks other ports.
      System.err.println("colony: the Temporal dev server exited while starting (" + first.getMessage()
          + "); starting it again");
      try {
        return launch(cli, port, uiPort, db, log);
      } catch (ExitedEarly again) {
        throw new UserError("the Temporal dev server exited with code " + again.code + " before it was ready: "
            + again.getMessage() + " (log: " + log + ")");
      }
    }
  }

  /** The server exited before it served: its code and the last line of its log. */
  private static final class ExitedEarly extends RuntimeException {
    final int code;

    ExitedEarly(int code, String lastLine) {
      super(lastLine, null, false, false);
      this.code = code;
    }
  }

  private static DevServer launch(TemporalCli cli, int port, int uiPort, Path db, Path log) {
    // In its own session (Processes.tiedToWorker), so Ctrl-C in the terminal reaches Colony only:
    // Colony stops its worker first and the server after it, instead of both at once.
    List<String> argv = Processes.tiedToWorker(argv(cli, port, uiPort, db));
    // Started from a thread that lives exactly as long as the server (Processes.start): the
    // kernel's parent-death signal follows the thread that started the child.
    Process process;
    try {
      process = Processes.start(new ProcessBuilder(argv).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())));
    } catch (IOException e) {
      throw new UserError("cannot run " + cli.path() + ": " + e.getMessage());
    }
    DevServer server = new DevServer(process, port, uiPort, db, log);
    server.awaitReady();
    return server;
  }

  private void awaitReady() {
    WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder().setTarget(address()).build());
    long deadline = System.nanoTime() + READY_WITHIN.toNanos();
    try {
      while (true) {
        if (!process.isAlive()) {
          throw new ExitedEarly(process.exitValue(), lastLine());
        }
        try {
          stubs.blockingStub().withDeadlineAfter(1, TimeUnit.SECONDS)
              .describeNamespace(DescribeNamespaceRequest.newBuilder().setNamespace("default").build());
          return;
        } catch (StatusRuntimeException notYet) {
          if (System.nanoTime() > deadline) {
            close();
            throw new UserError("the Temporal dev server did not answer within " + READY_WITHIN.toSeconds()
                + " s (log: " + log + ")");
          }
        }
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          close();
          throw new UserError("interrupted while starting Temporal");
        }
      }
    } finally {
      stubs.shutdownNow();
    }
  }

  private String lastLine() {
    try {
      List<String> lines = Files.readAllLines(log);
      for (int i = lines.size() - 1; i >= 0; i--) {
        if (!lines.get(i).isBlank()) {
          String l = lines.get(i).strip();
          return l.length() > 300 ? l.substring(0, 300) + "…" : l;
        }
      }
    } catch (IOException ignored) {
      // the pointer to the log is enough
    }
    return "(no output)";
  }

  @Override
  public CompletableFuture<?> exited() {
    CompletableFuture<Void> byItself = new CompletableFuture<>();
    process.onExit().thenRun(() -> {
      if (!closing) {
        byItself.complete(null);
      }
    });
    return byItself;
  }

  @Override
  public String address() {
    return "localhost:" + port;
  }

  @Override
  public String webUi() {
    return "http://localhost:" + uiPort;
  }

  @Override
  public String describe() {
    return "the Temporal dev server (temporal server start-dev) at " + address() + ", Web UI " + webUi()
        + (db == null ? ", state in memory" : ", state in " + db) + "; log " + log;
  }

  /** SIGTERM, then SIGKILL if it has not stopped within 10 s. */
  @Override
  public void close() {
    closing = true;
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
