package dev.colony.fault;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * How long {@code colony status} takes with many ants and no worker at all, as a user runs it: a
 * whole CLI process (JVM start included) against {@code colony server}. Run it with
 * {@code bench/status}; it writes {@code bench/STATUS.md}.
 */
public final class StatusBench {
  private static final int RUNS = 5;

  private StatusBench() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args.length > 0 ? args[0] : "bench/STATUS.md");
    int[] sizes = {1, 1000, 10_000};
    List<String> rows = new ArrayList<>();
    for (String kind : List.of("dev", "memory")) {
      for (int n : sizes) {
        if (kind.equals("memory") && n > 1000) {
          continue; // the in-memory server describes each ant: shown for 1,000 only
        }
        Path tmp = Files.createTempDirectory("colony-status-bench");
        try (Cluster c = new Cluster(tmp)) {
          c.startServer(kind);
          Path colony = colonyOf(tmp.resolve("many"), c.dir, n);
          long t0 = System.nanoTime();
          c.cli("start", colony.toString());
          long startMs = (System.nanoTime() - t0) / 1_000_000;
          // CDS archive as the launcher uses it, created by a first, unmeasured call
          Path jsa = tmp.resolve("colony.jsa");
          run(c, jsa, "status", "--json");
          List<Long> table = new ArrayList<>();
          List<Long> json = new ArrayList<>();
          String sample = "";
          for (int i = 0; i < RUNS; i++) {
            long a = System.nanoTime();
            sample = run(c, jsa, "status");
            table.add((System.nanoTime() - a) / 1_000_000);
            long b = System.nanoTime();
            String doc = run(c, jsa, "status", "--json");
            json.add((System.nanoTime() - b) / 1_000_000);
            long listed = doc.lines().filter(l -> l.contains("\"workflowId\"")).count();
            if (listed != n) {
              throw new AssertionError("listed " + listed + " of " + n + " ants");
            }
          }
          rows.add(String.format(Locale.ROOT, "| %s | %,d | %s | %s | %,d ms |", kind, n, stats(table), stats(json), startMs));
          if (!sample.contains("no worker is polling") && kind.equals("dev")) {
            throw new AssertionError("status did not name the missing worker:\n" + sample);
          }
          System.out.println(rows.get(rows.size() - 1));
        }
      }
    }
    StringBuilder md = new StringBuilder();
    md.append("# `colony status` with many ants and no worker\n\n")
        .append("Measured by `bench/status` (the `StatusBench` main): `colony server` (real Temporal dev server with SQLite, ")
        .append("or `--server memory`), N ants started with `colony start` and **no worker running**, then ")
        .append(RUNS).append(" runs each of `colony status` and `colony status --json` as whole CLI processes ")
        .append("(JVM start included, with the launcher's class-data-sharing archive).\n\n")
        .append("| server | ants | `status` median (min–max) | `status --json` median (min–max) | `colony start` of all |\n")
        .append("|---|---|---|---|---|\n");
    rows.forEach(r -> md.append(r).append('\n'));
    md.append("\nAbove 100 ants the table shows a count and the ants that need attention (waiting for a human, ")
        .append("paused or failing: none here), so its time no longer grows with the colony; `--json` (and `--all`) ")
        .append("list every ant, and their time is mostly the server's: the `temporal` CLI itself needs about 0.45 s per ")
        .append("1,000 ants from the SQLite dev server.\n");
    md.append("\nBefore (query per ant, issue 7): 1,000 ants took 14 s with a worker, and with no worker one ant ")
        .append("hung about 66 s and failed the whole listing.\n\n")
        .append("Machine: ").append(Runtime.getRuntime().availableProcessors()).append(" cores, Java ")
        .append(Runtime.version()).append(", ").append(System.getProperty("os.name")).append(' ')
        .append(System.getProperty("os.arch")).append(". Recorded ").append(Instant.now()).append(".\n");
    Files.writeString(out, md.toString());
    System.out.println(md);
  }

  private static String run(Cluster c, Path jsa, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(Cluster.jvm());
    cmd.add(cmd.indexOf("-jar"), "-XX:+AutoCreateSharedArchive");
    cmd.add(cmd.indexOf("-jar"), "-XX:SharedArchiveFile=" + jsa);
    cmd.add(cmd.indexOf("-jar"), "-Xlog:cds=off");
    cmd.add(cmd.indexOf("-jar"), "-Xlog:cds+dynamic=off");
    cmd.remove("-XX:TieredStopAtLevel=1");
    cmd.remove("-XX:+UseSerialGC");
    cmd.remove("--enable-native-access=ALL-UNNAMED");
    cmd.addAll(List.of(args));
    cmd.addAll(List.of("--address", c.address));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new AssertionError("colony " + String.join(" ", args) + " failed: " + out);
    }
    return out;
  }

  /** A colony of n copies of the fault colony's delta ant. */
  private static Path colonyOf(Path dir, Path fixture, int n) throws Exception {
    Files.createDirectories(dir.resolve("ants"));
    Files.writeString(dir.resolve("colony.yaml"), "name: many\n");
    Files.copy(fixture.resolve("agent.sh"), dir.resolve("agent.sh"));
    String delta = Files.readString(fixture.resolve("ants/delta.yaml"));
    for (int i = 0; i < n; i++) {
      String name = String.format(Locale.ROOT, "ant%05d", i);
      Files.writeString(dir.resolve("ants/" + name + ".yaml"), delta.replace("name: delta", "name: " + name));
    }
    return dir;
  }

  private static String stats(List<Long> ms) {
    List<Long> s = new ArrayList<>(ms);
    Collections.sort(s);
    return String.format(Locale.ROOT, "%,d ms (%,d–%,d)", s.get(s.size() / 2), s.get(0), s.get(s.size() - 1));
  }
}
