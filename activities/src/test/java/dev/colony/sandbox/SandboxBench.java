package dev.colony.sandbox;

import dev.colony.engine.OverseerFeed;
import dev.colony.engine.Progress;
import dev.colony.engine.SessionContext;
import dev.colony.engine.SessionGuard;
import dev.colony.engine.Transcripts;
import dev.colony.engine.command.CommandEngine;
import dev.colony.errorpolicy.Outcome;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.spec.Autonomy;
import dev.colony.spec.ClaudeSpec;
import dev.colony.spec.CommandSpec;
import dev.colony.spec.ConfirmationSpec;
import dev.colony.spec.EngineKind;
import dev.colony.spec.GeminiSpec;
import dev.colony.spec.LmOutput;
import dev.colony.spec.RecoveryPolicy;
import dev.colony.spec.SandboxSpec;
import dev.colony.spec.ToolCallLogging;
import dev.colony.spec.WorkspaceSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * What the sandbox costs, measured the way a session runs (SessionWalls, then the command engine
 * starting the agent in its walls): the start-to-end time of a trivial session with the sandbox
 * and with {@code sandbox: off}, interleaved in one run; the memory of the sandbox's own processes
 * beside a running agent; and 20 ants running sessions at once. Writes bench/SANDBOX.md (keeping
 * the channel's client's section, {@code ChannelClientBench}'s).
 * Run: bench/sandbox.
 */
public final class SandboxBench {
  private SandboxBench() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args.length > 0 ? args[0] : "bench/SANDBOX.md");
    int rounds = Integer.getInteger("bench.sessions", 200);
    Path tmp = Files.createTempDirectory("colony-sandbox-bench");
    Bubblewrap.Probe probe = Bubblewrap.probe();
    if (!probe.works()) {
      throw new IllegalStateException(probe.problem());
    }
    // Warm up both paths (page cache, the JIT), then measure them interleaved.
    for (int i = 0; i < 20; i++) {
      session(tmp, "warm", "true", SandboxSpec.DEFAULTS);
      session(tmp, "warm", "true", SandboxSpec.OFF);
    }
    List<Long> on = new ArrayList<>();
    List<Long> off = new ArrayList<>();
    for (int i = 0; i < rounds; i++) {
      on.add(session(tmp, "a", "true", SandboxSpec.DEFAULTS));
      off.add(session(tmp, "a", "true", SandboxSpec.OFF));
    }
    Collections.sort(on);
    Collections.sort(off);
    long[] memory = memory(tmp);
    String concurrent = concurrent(tmp, 20);
    StringBuilder md = new StringBuilder();
    md.append("# The sandbox, measured\n\n");
    md.append("Measured by `bench/sandbox` (the `SandboxBench` main) on ").append(Instant.now().toString(), 0, 10)
        .append(", ").append(Runtime.getRuntime().availableProcessors()).append(" cores, ")
        .append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.version"))
        .append(", worker as ").append(System.getProperty("user.name")).append(".\n\n");
    md.append("## What a session's walls cost\n\n");
    md.append("A session of the `command` engine whose agent is `true`, started the way the worker starts one "
        + "(`SessionWalls`, then the engine): from the walls' decision to the agent's exit and the end of its "
        + "output, with the sandbox (bubblewrap, its namespaces, its control group for limits) and with `sandbox: "
        + "off`, ").append(rounds).append(" of each, interleaved.\n\n");
    md.append("| sessions | p50 | p90 | p99 | max |\n|---|---|---|---|---|\n");
    md.append(row("sandbox on", on)).append(row("sandbox: off", off));
    long added = pct(on, 50) - pct(off, 50);
    md.append("\nAdded by the sandbox, p50: **").append(ms(added)).append("** (target under 50 ms: ")
        .append(added < 50_000_000L ? "met" : "**missed**").append("); p99: ")
        .append(ms(pct(on, 99) - pct(off, 99))).append(".\n\n");
    md.append("## Memory per running session\n\n");
    md.append("The resident memory of the sandbox's own processes (the control-group shell is replaced by bwrap; "
        + "bwrap stays as the PID namespace's parent, and its init inside) beside an agent that sleeps, from "
        + "`/proc/<pid>/status` (VmRSS): ").append(kb(memory[0])).append(" for the bwrap processes, "
        + "not counting the agent itself (").append(kb(memory[1])).append(").\n\n");
    md.append("## 20 ants at once on ").append(Runtime.getRuntime().availableProcessors()).append(" cores\n\n");
    md.append(concurrent);
    // The channel's client's section (ChannelClientBench, bench/channel) is kept as it was.
    String old = Files.exists(out) ? Files.readString(out, StandardCharsets.UTF_8) : "";
    int channel = old.indexOf("\n## The channel's client");
    if (channel >= 0) {
      md.append(old.substring(channel));
    }
    Files.writeString(out, md.toString(), StandardCharsets.UTF_8);
    System.out.println(md);
  }

  private static String row(String what, List<Long> xs) {
    return "| " + what + " (" + xs.size() + ") | " + ms(pct(xs, 50)) + " | " + ms(pct(xs, 90)) + " | "
        + ms(pct(xs, 99)) + " | " + ms(xs.get(xs.size() - 1)) + " |\n";
  }

  private static long pct(List<Long> sorted, int p) {
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
  }

  private static String ms(long nanos) {
    return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
  }

  private static String kb(long kb) {
    return String.format(Locale.ROOT, "%.1f MiB", kb / 1024.0);
  }

  static AntSpec spec(Path colony, String name, String script, SandboxSpec sandbox) {
    return CommandAnts.ant(colony, name, List.of("/bin/sh", "-c", script)).sandbox(sandbox).build();
  }

  /** One session; returns its nanoseconds from the walls' decision to its end. */
  static long session(Path colony, String name, String script, SandboxSpec sandbox) throws Exception {
    AntSpec spec = spec(colony, name, script, sandbox);
    Path ws = Files.createDirectories(colony.resolve(".colony/workspaces").resolve(name));
    Map<String, String> session = Map.of("COLONY_ANT", name, "COLONY_COLONY", "bench");
    long start = System.nanoTime();
    CommandAnts.Ran r = CommandAnts.run(spec, 1, ws, System.getenv(), session, Duration.ofMinutes(5), null);
    if (r.result().outcome() != Outcome.SUCCESS) {
      throw new IllegalStateException("session failed: " + r.result().detail());
    }
    return System.nanoTime() - start;
  }


  /** {bwrap processes' RSS, the agent's RSS} in KiB, beside an agent that sleeps. */
  static long[] memory(Path colony) throws Exception {
    String marker = "colony-bench-agent-" + System.nanoTime();
    ExecutorService one = Executors.newSingleThreadExecutor();
    Future<Long> running = one.submit(() -> session(colony, "mem", "exec bash -c \"exec -a " + marker + " sleep 3\"", SandboxSpec.DEFAULTS));
    long[] found = null;
    for (int i = 0; i < 100 && found == null; i++) {
      Thread.sleep(30); // a bench, not a test: it samples a running session
      for (ProcessHandle h : ProcessHandle.allProcesses().toList()) {
        if (argv0(h).equals(marker)) {
          long bwrap = 0;
          for (ProcessHandle p = h.parent().orElse(null); p != null && argv0(p).endsWith("bwrap");
              p = p.parent().orElse(null)) {
            bwrap += rss(p.pid());
          }
          found = new long[] {bwrap, rss(h.pid())};
        }
      }
    }
    running.get();
    one.shutdown();
    if (found == null) {
      throw new IllegalStateException("the agent was never seen running");
    }
    return found;
  }

  /** 20 ants, each running 5 sessions that do a little work, all at once; with and without walls. */
  static String concurrent(Path colony, int ants) throws Exception {
    String work = "i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done; echo done";
    StringBuilder md = new StringBuilder("Each of ").append(ants)
        .append(" ants runs 5 sessions one after another (a shell loop of 2,000 steps each), all ants at once.\n\n")
        .append("| | sessions | all done in | per session p50 | per session p99 | failed |\n|---|---|---|---|---|---|\n");
    for (SandboxSpec s : List.of(SandboxSpec.DEFAULTS, SandboxSpec.OFF)) {
      ExecutorService pool = Executors.newFixedThreadPool(ants);
      List<Future<List<Long>>> fs = new ArrayList<>();
      long start = System.nanoTime();
      for (int a = 0; a < ants; a++) {
        String name = "ant" + a;
        fs.add(pool.submit(() -> {
          List<Long> xs = new ArrayList<>();
          for (int k = 0; k < 5; k++) {
            xs.add(session(colony, name, work, s));
          }
          return xs;
        }));
      }
      List<Long> all = new ArrayList<>();
      int failed = 0;
      for (Future<List<Long>> f : fs) {
        try {
          all.addAll(f.get());
        } catch (java.util.concurrent.ExecutionException e) {
          failed++;
        }
      }
      long total = System.nanoTime() - start;
      pool.shutdown();
      Collections.sort(all);
      md.append("| ").append(s.off() ? "sandbox: off" : "sandbox on").append(" | ").append(all.size()).append(" | ")
          .append(ms(total)).append(" | ").append(all.isEmpty() ? "-" : ms(pct(all, 50))).append(" | ")
          .append(all.isEmpty() ? "-" : ms(pct(all, 99))).append(" | ").append(failed).append(" |\n");
    }
    return md.toString();
  }

  private static String argv0(ProcessHandle h) {
    try {
      return new String(Files.readAllBytes(Path.of("/proc", Long.toString(h.pid()), "cmdline")),
          StandardCharsets.UTF_8).split("\0", 2)[0];
    } catch (Exception gone) {
      return "";
    }
  }

  private static long rss(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (Exception gone) {
      // ended meanwhile
    }
    return 0;
  }
}
