package dev.colony.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colony.merge.ItemState;
import dev.colony.merge.LandMode;
import dev.colony.merge.Landed;
import dev.colony.merge.MergeCard;
import dev.colony.merge.MergeDecision;
import dev.colony.merge.MergeItem;
import dev.colony.merge.MergeRepo;
import dev.colony.merge.Submission;
import dev.colony.merge.SubmitReply;
import dev.colony.client.MergeQueues;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code colony merge ...} over fake queues: what each subcommand prints, its JSON, and every refusal. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class MergeCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  private final Map<String, MergeCard> cards = new LinkedHashMap<>();
  private final List<Object> asked = new ArrayList<>();
  private final Map<String, String> hosts = new LinkedHashMap<>();
  /** The next update's refusal, if any. */
  private String refusal;
  private final long now = System.currentTimeMillis();

  record Result(int code, String out, String err) {}

  /** The commands' world: the queues in memory, @tester. */
  private final CliContext context = CliContext.standard().withWho(() -> "@tester").withQueues(options -> {
      String colony = options.colonyName();
      return new MergeCommand.Opened() {
        @Override
        public String colony() {
          return colony;
        }

        @Override
        public List<MergeCard> cards() {
          return List.copyOf(cards.values());
        }

        @Override
        public Optional<MergeCard> card(String repo) {
          return Optional.ofNullable(cards.get(repo));
        }

        @Override
        public SubmitReply submit(MergeRepo repo, Submission s) {
          asked.add(repo);
          asked.add(s);
          if (refusal != null) {
            throw new MergeQueues.MergeQueueException(refusal);
          }
          return new SubmitReply(s.ant() + "-1", ItemState.QUEUED, 2, "behind beta-4");
        }

        @Override
        public SubmitReply decide(String repo, MergeDecision d) {
          asked.add(repo);
          asked.add(d);
          if (refusal != null) {
            throw new MergeQueues.MergeQueueException(refusal);
          }
          return new SubmitReply(d.item(), d.action().equals("cancel") ? ItemState.CLOSED : ItemState.QUEUED, 1, null);
        }

        @Override
        public String host(String ant) {
          asked.add("host " + ant);
          return hosts.getOrDefault(ant, "");
        }

        @Override
        public void close() {}
      };
    });

  Result run(String... args) {
    return run(context, args);
  }

  /** {@code colony ARGS} with {@code context}, its output and exit code. */
  static Result run(CliContext context, String... args) {
    CommandLine cl = ColonyCli.commandLine(args, context);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args);
    return new Result(code, out.toString(), err.toString());
  }

  /** {@code colony merge ARGS --colony acme}. */
  Result merge(String... args) {
    String[] all = new String[args.length + 3];
    all[0] = "merge";
    System.arraycopy(args, 0, all, 1, args.length);
    all[args.length + 1] = "--colony";
    all[args.length + 2] = "acme";
    return run(all);
  }

  private static void fails(Result r, int code, String message) {
    assertEquals(code, r.code(), r.out() + r.err());
    assertEquals("", r.out());
    assertTrue(r.err().startsWith("colony: "), r.err());
    assertTrue(r.err().contains(message), r.err());
    assertEquals(1, r.err().lines().count(), "one line: " + r.err());
    assertFalse(r.err().contains("\tat "), r.err());
  }

  private MergeItem item(String id, String ant, ItemState state, String step, String reason, int tries, String task) {
    return new MergeItem(id, ant, "", "colony/" + ant, task, 2, state, step, now - 300_000, now, tries, reason,
        null, List.of(), "ant", false);
  }

  private void appQueue() {
    cards.put("app", new MergeCard("acme", "app", "main", LandMode.REBASE, false, "0123456789abcdef",
        List.of(item("alpha-3", "alpha", ItemState.LANDING, "testing", null, 0, "k7m2qx"),
            item("beta-1", "beta", ItemState.QUEUED, null, null, 1, null),
            item("gamma-2", "gamma", ItemState.NEEDS_HUMAN, null, "conflict in src/a.txt", 3, null)),
        List.of(new Landed("delta-1", "delta", null, "aaaa111", "bbbbbbb2222", "ccccccc3333", 3, 42_000, 900,
            now - 600_000, List.of("src/api/x.java"), null)),
        Map.of("alpha", List.of("src/api/**", "docs/*.md")), Map.of("beta", "alpha: src/api/**"),
        Map.of("src/api", List.of("alpha", "delta")), 12, now, List.of("gamma", "epsilon")));
  }

  // ---- status ----

  @Test
  void statusSaysWhichCommitsAnApprovalCoversAndWhichWaitForOne() {
    cards.put("app", new MergeCard("acme", "app", "main", LandMode.REBASE, true, "0123456789abcdef",
        List.of(new MergeItem("alpha-2", "alpha", "", "colony/alpha", "t1", 2, ItemState.QUEUED, null, now - 300_000,
            now, 0, "task t1 approved", null, List.of(), "ant", true,
            List.of(new dev.colony.merge.ItemPart("t1", "1a2b3c4d5e", "0f0e0d0c0b", true),
                new dev.colony.merge.ItemPart("t2", "2b3c4d5e6f", null, false)), "1a2b3c4d5e")),
        List.of(new Landed("alpha-1", "alpha", "t0", "9a9a9a9a", "bbbbbbb2222", "ccccccc3333", 2, 1_000, 900,
            now - 600_000, List.of(), null, List.of("t0"), "8b8b8b8b", true)),
        Map.of(), Map.of(), Map.of(), 1, now));
    Result r = merge("status", "app");
    assertEquals(0, r.code(), r.err());
    String o = r.out();
    assertTrue(o.contains("      tasks: t1, t2\n"), o);
    assertTrue(o.contains("      approved: 0f0e0d0..1a2b3c4 (nothing after it lands)\n"), o);
    assertTrue(o.contains("      awaiting review: t2 at 2b3c4d5\n"), o);
    assertTrue(o.contains(", approved 8b8b8b8..9a9a9a9"), o);
  }

  @Test
  void statusOfOneQueueShowsItemsClaimsWaitsLandingsAndHotPaths() {
    appQueue();
    Result r = merge("status", "app");
    assertEquals(0, r.code(), r.err());
    String o = r.out();
    assertTrue(o.startsWith("merge queue app (colony acme): main at 0123456, land rebase, 12 landed\n"), o);
    assertTrue(o.matches("(?s).*1 +alpha-3 +alpha +landing +testing +0 +k7m2qx +5m.*"), o);
    assertTrue(o.matches("(?s).*2 +beta-1 +beta +queued +- +1 +- +5m.*"), o);
    assertTrue(o.matches("(?s).*3 +gamma-2 +gamma +needs human +conflict in src/a.txt +3.*"), o);
    assertTrue(o.contains("  path claims:\n    alpha: src/api/**, docs/*.md\n"), o);
    assertTrue(o.contains("  waiting for paths:\n    beta waits for alpha: src/api/**\n"), o);
    assertTrue(o.contains("  declaring no paths (not scheduled by paths before their sessions): epsilon, gamma\n"), o);
    assertTrue(o.contains("    delta: 3 commits ccccccc..bbbbbbb, tests 42 s, 10m"), o);
    assertTrue(o.contains("  hot paths (changed by two or more ants):\n    src/api: alpha, delta\n"), o);
  }

  @Test
  void statusWithoutARepoShowsEveryQueueAndJsonIsTheCards() throws Exception {
    appQueue();
    cards.put("lib", new MergeCard("acme", "lib", "trunk", LandMode.SQUASH, true, null, List.of(), List.of(),
        Map.of(), Map.of(), Map.of(), 0, now));
    Result r = merge("status");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("merge queue app (colony acme)"), r.out());
    assertTrue(r.out().contains("merge queue lib (colony acme): trunk at -, land squash, review on, 0 landed\n  no open items\n"),
        r.out());
    JsonNode all = JSON.readTree(merge("status", "--json").out());
    assertEquals(2, all.size());
    assertEquals("app", all.get(0).get("repo").asText());
    assertEquals("alpha-3", all.get(0).get("items").get(0).get("id").asText());
    assertEquals("LANDING", all.get(0).get("items").get(0).get("state").asText());
    JsonNode one = JSON.readTree(merge("status", "lib", "--json").out());
    assertEquals("trunk", one.get("target").asText());
    assertEquals("SQUASH", one.get("land").asText());
  }

  @Test
  void noQueuesAndAMissingQueue() {
    Result r = merge("status");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().startsWith("colony 'acme' has no running merge queue"), r.out());
    fails(merge("status", "nope"), 1, "no merge queue 'nope' in colony 'acme'");
    fails(merge("status", "no way"), 2, "is not a queue's name");
  }

  // ---- submit ----

  private Path colonyDir() throws Exception {
    Path dir = Files.createTempDirectory(tmp, "colony");
    Files.writeString(dir.resolve("colony.yaml"), "name: acme\nmerge:\n  repos:\n    - name: app\n      repo: ./repo\n"
        + "      test: ./test.sh\n    - name: other\n      repo: ./other\n");
    Files.createDirectories(dir.resolve("repo/.git"));
    Files.createDirectories(dir.resolve("other/.git"));
    Files.createDirectories(dir.resolve("ants"));
    Files.writeString(dir.resolve("ants/alpha.yaml"), "name: alpha\ndescription: d\ninstructions: i\n"
        + "engine: command\ncommand:\n  argv: [\"true\"]\nworkspace:\n  repo: ./repo\n  branch: work/alpha\n");
    Files.writeString(dir.resolve("ants/loner.yaml"), "name: loner\ndescription: d\ninstructions: i\n"
        + "engine: command\ncommand:\n  argv: [\"true\"]\n");
    return dir;
  }

  @Test
  void submitWithAHeadNamesTheCommitAnApprovalCovers() throws Exception {
    Path dir = colonyDir();
    Result r = run("merge", "submit", "alpha", "--dir", dir.toString(), "--head", "1A2B3C4D5E");
    assertEquals(0, r.code(), r.err());
    assertEquals("1a2b3c4d5e", ((Submission) asked.get(2)).head());
    fails(run("merge", "submit", "alpha", "--dir", dir.toString(), "--head", "main~1"), 2, "is not a commit id");
  }

  @Test
  void submitFindsTheAntsQueueAndHostAndPrintsTheReply() throws Exception {
    Path dir = colonyDir();
    hosts.put("alpha", "box-2");
    Result r = run("merge", "submit", "alpha", "--dir", dir.toString(), "--task", "k7m2qx", "--priority", "urgent");
    assertEquals(0, r.code(), r.err());
    assertEquals("alpha-1: queued, #2 in line (behind beta-4)\n", r.out());
    MergeRepo repo = (MergeRepo) asked.get(1);
    assertEquals("app", repo.name());
    assertEquals(List.of("/bin/sh", "-c", "./test.sh"), repo.test());
    assertEquals(new Submission("alpha", "box-2", "work/alpha", "k7m2qx", 0, "@tester", false), asked.get(2));
    assertEquals("host alpha", asked.get(0));
  }

  @Test
  void validateListsTheQueuesAndTheirAnts() throws Exception {
    Result r = run("validate", colonyDir().toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("  merge queue app: ./repo → main, tests ./test.sh (1 ant)\n"
        + "  merge queue other: ./other → main, no tests (0 ants)\n"), r.out());
  }

  @Test
  void submitRefusals() throws Exception {
    Path dir = colonyDir();
    String d = dir.toString();
    fails(run("merge", "submit", "ghost", "--dir", d), 1, "no ant named 'ghost' in colony 'acme' (ants: alpha, loner)");
    fails(run("merge", "submit", "loner", "--dir", d), 1, "ant 'loner' has no merge queue");
    fails(run("merge", "submit", "alpha", "--dir", d, "--repo", "nope"), 1, "no merge queue 'nope' in colony.yaml (merge.repos: app, other)");
    fails(run("merge", "submit", "alpha", "--dir", d, "--repo", "other"), 1, "ant 'alpha' works on app, not other");
    fails(run("merge", "submit", "alpha", "--dir", d, "--priority", "asap"), 2, "'asap' is not a priority");
    fails(run("merge", "submit", "alpha", "--dir", d, "--task", "NOT AN ID"), 2, "is not a task id");
    refusal = "alpha has no new commits on colony/alpha";
    fails(run("merge", "submit", "alpha", "--dir", d), 1, "alpha has no new commits on colony/alpha");
    assertTrue(asked.stream().noneMatch(a -> a instanceof Submission s && !s.ant().equals("alpha")), asked.toString());
  }

  // ---- approve, retry, cancel ----

  @Test
  void decisionsFindTheQueueHoldingTheItem() {
    appQueue();
    cards.put("lib", new MergeCard("acme", "lib", "main", LandMode.REBASE, true, null,
        List.of(item("zeta-1", "zeta", ItemState.AWAITING_REVIEW, null, null, 0, null)), List.of(), Map.of(), Map.of(),
        Map.of(), 0, now));
    Result r = merge("approve", "zeta-1");
    assertEquals(0, r.code(), r.err());
    assertEquals("zeta-1: queued, #1 in line\n", r.out());
    assertEquals(List.of("lib", new MergeDecision("zeta-1", "approve", "@tester")), asked);
    asked.clear();
    assertEquals(0, merge("approve", "zeta-1", "--head", "1A2B3C4").code());
    assertEquals(List.of("lib", new MergeDecision("zeta-1", "approve", "@tester", "1a2b3c4")), asked,
        "the approval covers the head the human reviewed");
    asked.clear();
    fails(merge("approve", "zeta-1", "--head", "main"), 2, "is not a commit id");
    asked.clear();
    assertEquals(0, merge("retry", "gamma").code());
    assertEquals(List.of("app", new MergeDecision("gamma", "retry", "@tester")), asked);
    asked.clear();
    Result c = merge("cancel", "beta-1", "--repo", "app");
    assertEquals("beta-1: closed, #1 in line\n", c.out());
    assertEquals(List.of("app", new MergeDecision("beta-1", "cancel", "@tester")), asked);
  }

  @Test
  void decisionRefusals() {
    fails(merge("approve", "alpha-3"), 1, "colony 'acme' has no running merge queue");
    appQueue();
    cards.put("lib", new MergeCard("acme", "lib", "main", LandMode.REBASE, true, null, List.of(), List.of(), Map.of(),
        Map.of(), Map.of(), 0, now));
    fails(merge("approve", "omega-1"), 1, "no open item 'omega-1' in the merge queues of colony 'acme'");
    fails(merge("approve", "alpha-3", "--repo", "nope"), 1, "no merge queue 'nope' in colony 'acme'");
    fails(merge("cancel", "a b"), 2, "is not an item");
    refusal = "alpha-3 is landing: it cannot be approved now";
    fails(merge("approve", "alpha-3"), 1, "alpha-3 is landing: it cannot be approved now");
  }

  @Test
  void noColonyIsAUsageError() {
    Result r = run("merge", "status", "--dir", tmp.resolve("none").toString());
    assertEquals(1, r.code(), r.err());
    assertFalse(r.err().contains("\tat "), r.err());
  }

  // ---- the view's other lines ----

  @Test
  void startLinesAndTheConsoleLine() {
    MergeRepo r = new MergeRepo("acme", "app", "/c/repo", "main", LandMode.REBASE, List.of("./test.sh"), 600, false,
        false, 3, 3600, "/c", "/c/.colony/merge/app", null, null);
    assertEquals("merge queue app: ./repo → main, tests ./test.sh", MergeView.started(r));
    MergeRepo s = new MergeRepo("acme", "lib", "https://example.com/lib.git", "trunk", LandMode.SQUASH,
        List.of("/bin/sh", "-c", "make test"), 600, true, true, 3, 3600, "/c", "/c/.colony/merge/lib", null, null);
    assertEquals("merge queue lib: https://example.com/lib.git → trunk, tests make test, land squash, review",
        MergeView.started(s));
    appQueue();
    assertEquals("app: main at 0123456, 3 open (alpha landing: testing), 12 landed, 1 waiting for paths",
        MergeView.shortLine(cards.get("app")));
  }

  @Test
  void theDevConsoleShowsEveryQueueInOneLine() {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    DevConsole console = new DevConsole(null, "acme", new java.io.PrintStream(bytes, true,
        java.nio.charset.StandardCharsets.UTF_8));
    console.mergeCards = () -> List.copyOf(cards.values());
    console.handle("/merge");
    appQueue();
    console.handle("/merge");
    assertEquals("no running merge queue (merge.repos in colony.yaml)\n"
        + "app: main at 0123456, 3 open (alpha landing: testing), 12 landed, 1 waiting for paths\n",
        bytes.toString(java.nio.charset.StandardCharsets.UTF_8));
    assertTrue(DevConsole.HELP.contains("/merge"));
  }
}
