package dev.colony.cli;

import java.io.PrintWriter;

/** What {@code colony dev} and {@code colony server} print once Temporal is up. */
final class Banner {
  private Banner() {}

  static void print(PrintWriter out, LocalServer server, String colony) {
    if (server.webUi() != null) {
      out.println("  Web UI:        " + server.webUi() + "   (filter ants with AntState = 'paused' or AntNeedsHuman = true)");
    }
    TemporalCli cli = TemporalCli.find();
    String temporal = cli == null ? "temporal" : cli.path().toString();
    // Tasks share ColonyName: the ants' list names their type.
    String query = dev.colony.client.AntRow.ants(colony).toString();
    if (server instanceof DevServer) {
      out.println("  temporal CLI:  " + temporal + " workflow list --address " + server.address()
          + " --query \"" + query + "\"");
    } else {
      out.println("  temporal CLI:  " + temporal + " workflow signal --address " + server.address()
          + " --workflow-id ant/<colony>/<ant> --name pause   (this server has no list/visibility)");
    }
    out.flush();
  }
}
