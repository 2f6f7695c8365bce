package dev.colony.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** How {@code colony dev} and {@code colony server} run Temporal. */
final class ServerOptions {
  enum Kind { DEV, MEMORY }

  @Option(names = "--server", paramLabel = "dev|memory", defaultValue = "dev",
      converter = KindConverter.class,
      description = "dev: the real Temporal dev server (temporal server start-dev: Web UI, SQLite, "
          + "visibility); memory: Temporal's in-memory test server (no UI, state lost on exit). "
          + "Default: ${DEFAULT-VALUE}; memory is also the fallback when no Temporal CLI can be had.")
  Kind kind;

  @Option(names = "--port", defaultValue = "7233",
      description = "Temporal frontend port (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--ui-port", paramLabel = "PORT",
      description = "Web UI port (default: --port + 1000, i.e. 8233).")
  Integer uiPort;

  @Option(names = "--fresh",
      description = "Start from an empty database (deletes the dev server's SQLite file first; never one "
          + "another colony dev or server is using).")
  boolean fresh;

  static final class KindConverter implements picocli.CommandLine.ITypeConverter<Kind> {
    @Override
    public Kind convert(String value) {
      return switch (value.toLowerCase(java.util.Locale.ROOT)) {
        case "dev" -> Kind.DEV;
        case "memory" -> Kind.MEMORY;
        default -> throw new picocli.CommandLine.TypeConversionException(
            "expected 'dev' or 'memory', got '" + value + "'");
      };
    }
  }

  /**
   * Starts the server asked for. With {@code dev} and no Temporal CLI here, says why in one line
   * and falls back to the in-memory server.
   *
   * @param db the dev server's SQLite file
   * @param logDir where the dev server's log goes
   */
  LocalServer start(Path db, Path logDir, PrintWriter err) {
    Addresses.requirePort(port, "--port");
    if (uiPort != null) {
      Addresses.requirePort(uiPort, "--ui-port");
    }
    if (kind == Kind.DEV) {
      TemporalCli cli = TemporalCli.find();
      if (cli != null) {
        // Before anything touches the database: another colony dev or server may be using it.
        DatabaseLock.hold(db, port);
        if (fresh) {
          deleteDatabase(db);
        }
        return DevServer.start(cli, port, uiPort == null ? port + 1000 : uiPort, db,
            logDir.resolve("temporal.log"));
      }
      err.println("colony: no Temporal CLI found, so no Web UI and no durable state: using the in-memory "
          + "server instead. To get them, " + TemporalCli.INSTALL_HINT + ".");
      err.flush();
    }
    return EmbeddedServer.start(port);
  }

  private static void deleteDatabase(Path db) {
    try {
      for (String suffix : new String[] {"", "-wal", "-shm", "-journal"}) {
        Files.deleteIfExists(Path.of(db + suffix));
      }
    } catch (IOException e) {
      throw new UserError("--fresh: cannot delete " + db + ": " + e.getMessage());
    }
  }
}
