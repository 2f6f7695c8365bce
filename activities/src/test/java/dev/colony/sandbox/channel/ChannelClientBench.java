package dev.colony.sandbox.channel;

import dev.colony.errorpolicy.Outcome;
import dev.colony.mailbox.Mail;
import dev.colony.sandbox.Bubblewrap;
import dev.colony.sandbox.CommandAnts;
import dev.colony.spec.AntSpec;
import dev.colony.spec.SandboxSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What one {@code "$COLONY_BIN" send} costs an ant inside its sandbox, through the python client
 * and through the JVM client, against a real channel: sessions of the {@code command} engine in
 * real walls, each timing its calls with {@code date +%s%N} around them ({@code /usr/bin/true}
 * timed the same way is what the timing itself costs). Sessions of the clients alternate, 10
 * calls each after 2 unmeasured, until each has {@code bench.calls} (50). Writes its section of
 * bench/SANDBOX.md (replacing its last one). Not a test: run it by name,
 * {@code ./mvnw -B -ntp -o -q -pl activities -am test -Dtest=ChannelClientBench -Dsurefire.failIfNoSpecifiedTests=false}
 * (or bench/channel).
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ChannelClientBench {
  static final String SECTION = "## The channel's client: one send from inside";

  @Test
  void measure() throws Exception {
    main(new String[] {System.getProperty("bench.out", "../bench/SANDBOX.md")});
  }

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args.length > 0 ? args[0] : "bench/SANDBOX.md");
    int calls = Integer.getInteger("bench.calls", 50);
    Bubblewrap.Probe probe = Bubblewrap.probe();
    if (!probe.works()) {
      throw new IllegalStateException(probe.problem());
    }
    Path tmp = Files.createTempDirectory("colony-channel-bench");
    Path python = PythonClient.PYTHON;
    Map<String, Path> clients = new LinkedHashMap<>();
    clients.put("python3 client", python);
    clients.put("JVM client", Path.of("/nonexistent/python3"));
    clients.put("`/usr/bin/true` (the timing's own cost)", null);
    Map<String, List<Long>> times = new LinkedHashMap<>();
    clients.keySet().forEach(k -> times.put(k, new ArrayList<>()));
    String pythonProblem = null;
    while (times.values().stream().anyMatch(xs -> xs.size() < calls)) {
      for (var c : clients.entrySet()) {
        List<Long> xs = times.get(c.getKey());
        if (xs.size() >= calls) {
          continue;
        }
        boolean viaChannel = c.getValue() != null;
        String program = viaChannel ? "\"$COLONY_BIN\" send --from \"$COLONY_ANT\" builder \"finding $i\"" : "/usr/bin/true";
        Path[] used = new Path[1];
        List<Long> got = session(tmp, program, Math.min(10, calls - xs.size()), viaChannel ? c.getValue() : python, used);
        if (viaChannel && c.getValue().equals(python) && used[0] == null) {
          Path copy = tmp.resolve(PythonClient.FILE);
          try (var in = ChannelClient.class.getResourceAsStream(PythonClient.FILE)) {
            Files.write(copy, in.readAllBytes());
          }
          pythonProblem = PythonClient.problem(python, copy);
        }
        xs.addAll(got);
      }
    }
    StringBuilder md = new StringBuilder();
    md.append(SECTION).append("\n\n");
    md.append("Measured by `ChannelClientBench` (`bench/channel`, or `./mvnw -B -ntp -o -q -pl activities -am test "
        + "-Dtest=ChannelClientBench -Dsurefire.failIfNoSpecifiedTests=false`) on ")
        .append(Instant.now().toString(), 0, 10).append(", ").append(Runtime.getRuntime().availableProcessors())
        .append(" cores, load average ").append(String.format(Locale.ROOT, "%.1f", loadAverage())).append(".\n\n");
    md.append("`\"$COLONY_BIN\" send --from \"$COLONY_ANT\" builder TEXT` run by an ant inside its sandbox (a session of "
        + "the `command` engine in real walls) against a real channel, ").append(calls)
        .append(" calls per client (sessions alternating, 10 calls each after 2 not counted), each timed inside with "
            + "`date +%s%N` before and after; the last row times `/usr/bin/true` so, which is what the timing "
            + "itself adds.\n\n");
    md.append("| client | calls | p50 | p90 | p99 | max |\n|---|---|---|---|---|---|\n");
    for (var e : times.entrySet()) {
      List<Long> xs = e.getValue();
      Collections.sort(xs);
      md.append("| ").append(e.getKey()).append(" | ").append(xs.size()).append(" | ").append(ms(pct(xs, 50)))
          .append(" | ").append(ms(pct(xs, 90))).append(" | ").append(ms(pct(xs, 99))).append(" | ")
          .append(ms(xs.get(xs.size() - 1))).append(" |\n");
    }
    if (pythonProblem != null) {
      md.append("\nNo python3 the sandbox can run on this machine (").append(pythonProblem)
          .append("): the python client's row is the JVM's.\n");
    }
    String old = Files.exists(out) ? Files.readString(out, StandardCharsets.UTF_8) : "";
    int at = old.indexOf(SECTION);
    String kept = (at < 0 ? old : old.substring(0, at)).stripTrailing();
    Files.writeString(out, (kept.isEmpty() ? "" : kept + "\n\n") + md, StandardCharsets.UTF_8);
    System.out.println(md);
  }

  /** One session of scout: {@code calls} timed runs of {@code program} (2 more first); their nanoseconds. */
  static List<Long> session(Path tmp, String program, int calls, Path python, Path[] used) throws Exception {
    Path colony = tmp.resolve("colony");
    Path ws = Files.createDirectories(colony.resolve(".colony/workspaces/scout"));
    String script = "i=0; while [ $i -lt " + (calls + 2) + " ]; do t0=$(date +%s%N); " + program
        + " >/dev/null; rc=$?; t1=$(date +%s%N); [ $rc = 0 ] || echo \"failed $rc\"; "
        + "[ $i -lt 2 ] || echo \"took $((t1 - t0))\"; i=$((i + 1)); done";
    AntSpec spec = CommandAnts.ant(colony, "scout", List.of("/bin/sh", "-c", script)).sandbox(SandboxSpec.DEFAULTS).build();
    Map<String, String> session = Map.of("COLONY_ANT", "scout", "COLONY_COLONY", "c", "COLONY_SESSION", "1");
    ChannelRules.Identity who = new ChannelRules.Identity("c", "scout", 1);
    ColonyChannel.Colony colonySide = new ColonyChannel.Colony() {
      @Override
      public String send(String to, Mail mail) {
        return "c/" + to + ": message from " + mail.from() + " sent";
      }

      @Override
      public String status() {
        return "c/scout";
      }
    };
    AtomicLong nanos = new AtomicLong();
    CommandAnts.Ran ran = CommandAnts.run(spec, 1, ws, System.getenv(), session, Duration.ofMinutes(5), () -> {
      // A second a request on the channel's clock: the bench measures the client, not the rate limit.
      ColonyChannel ch = ColonyChannel.open(who, colonySide, () -> nanos.addAndGet(1_000_000_000L), () -> { }, python);
      used[0] = ch.python();
      return ch;
    });
    if (ran.result().outcome() != Outcome.SUCCESS || ran.output().contains("failed ")) {
      throw new IllegalStateException("the session failed: " + ran.result().detail() + "\n" + ran.output());
    }
    List<Long> xs = new ArrayList<>();
    for (String line : ran.output().lines().toList()) {
      if (line.startsWith("took ")) {
        xs.add(Long.parseLong(line.substring(5).strip()));
      }
    }
    if (xs.size() != calls) {
      throw new IllegalStateException("expected " + calls + " timings:\n" + ran.output());
    }
    return xs;
  }

  private static double loadAverage() {
    return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  private static long pct(List<Long> sorted, int p) {
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
  }

  private static String ms(long nanos) {
    return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
  }
}
