package dev.colony.cli;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.merge.ItemState;
import dev.colony.merge.LandMode;
import dev.colony.merge.MergeCard;
import dev.colony.merge.MergeDecision;
import dev.colony.merge.MergeItem;
import dev.colony.merge.MergeQueueState;
import dev.colony.merge.MergeQueueWorkflow;
import dev.colony.merge.MergeRepo;
import dev.colony.merge.PathClaim;
import dev.colony.merge.PathReply;
import dev.colony.merge.Submission;
import dev.colony.merge.SubmitReply;
import dev.colony.client.MergeQueues;
import dev.colony.visibility.AntSearchAttributes;
import io.temporal.failure.ApplicationFailure;
import io.temporal.worker.WorkerFactory;
import io.temporal.workflow.Workflow;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link MergeQueues} and {@code colony merge} against the embedded server with a stub
 * queue workflow that keeps its card in the memo: start (signal-with-start, ColonyName, first
 * card), status from the memo, submit and decide as updates, a refusal, taskApproved.
 */
@Timeout(120)
class MergeQueuesTest {
  private static final String QUEUE = "colony-acme";

  /** A queue that answers updates and writes its card; no git. */
  public static final class StubQueue implements MergeQueueWorkflow {
    private MergeRepo repo;
    private final List<MergeItem> items = new ArrayList<>();
    private final Map<String, String> told = new TreeMap<>();

    @Override
    public void run(MergeQueueState state) {
      repo = state.repo();
      writeCard();
      Workflow.await(() -> false);
    }

    private void writeCard() {
      Workflow.upsertMemo(Map.of(MergeCard.MEMO, card()));
    }

    @Override
    public void configure(MergeRepo r) {
      repo = r;
    }

    @Override
    public SubmitReply submit(Submission s) {
      MergeItem i = new MergeItem(s.ant() + "-" + (items.size() + 1), s.ant(), s.host(), s.branch(), s.taskId(),
          s.priority(), ItemState.QUEUED, null, Workflow.currentTimeMillis(), Workflow.currentTimeMillis(), 0, null,
          null, List.of(), s.by(), s.approved());
      items.add(i);
      writeCard();
      return new SubmitReply(i.id(), ItemState.QUEUED, items.size(), "on " + s.host());
    }

    @Override
    public void validateSubmit(Submission s) {
      if (s.ant().equals("nobody")) {
        throw ApplicationFailure.newFailure("nobody has no branch", "Refused");
      }
    }

    @Override
    public SubmitReply decide(MergeDecision d) {
      items.removeIf(i -> i.id().equals(d.item()));
      writeCard();
      return new SubmitReply(d.item(), ItemState.CLOSED, 0, "cancelled by " + d.by());
    }

    @Override
    public void validateDecide(MergeDecision d) {
      if (items.stream().noneMatch(i -> i.id().equals(d.item()))) {
        throw ApplicationFailure.newFailure("no open item " + d.item(), "Refused");
      }
    }

    @Override
    public void taskApproved(String taskId) {
      told.put("approved", taskId);
      writeCard();
    }

    @Override
    public PathReply claimPaths(PathClaim claim) {
      return PathReply.grant();
    }

    @Override
    public void validateClaimPaths(PathClaim claim) {}

    @Override
    public void releasePaths(String ant) {}

    @Override
    public void upgrade() {}

    @Override
    public MergeCard card() {
      return new MergeCard(repo.colony(), repo.name(), repo.target(), repo.land(), repo.review(), "abcdef0123",
          items, List.of(), Map.of(), told, Map.of(), 0, Workflow.currentTimeMillis());
    }
  }

  private EmbeddedServer server;
  private Temporal temporal;
  private WorkerFactory factory;
  private String address;

  @BeforeEach
  void setUp() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    server = EmbeddedServer.start(port);
    address = "127.0.0.1:" + port;
    temporal = Temporal.connect(address, "default");
    SearchAttributeSetup.ensure(temporal);
    factory = WorkerFactory.newInstance(temporal.client);
    factory.newWorker(QUEUE).registerWorkflowImplementationTypes(StubQueue.class);
    factory.start();
  }

  @AfterEach
  void tearDown() {
    factory.shutdownNow();
    temporal.close();
    server.close();
  }

  private static MergeRepo repo(String name, String target) {
    return new MergeRepo("acme", name, "/c/" + name, target, LandMode.REBASE, List.of("./test.sh"), 600, false, false,
        3, 3600, "/c", "/c/.colony/merge/" + name, null, null);
  }

  private MergeCommandTest.Result cli(String... args) {
    String[] full = new String[args.length + 4];
    System.arraycopy(args, 0, full, 0, args.length);
    full[args.length] = "--address";
    full[args.length + 1] = address;
    full[args.length + 2] = "--colony";
    full[args.length + 3] = "acme";
    return MergeCommandTest.run(CliContext.standard(), full);
  }

  @Test
  void startReadSubmitDecideAndTell() throws Exception {
    MergeQueues q = new MergeQueues(temporal.client, "acme");
    assertTrue(q.card("app").isEmpty());
    StringWriter started = new StringWriter();
    StartCommand.startMergeQueues(temporal, QUEUE, new dev.colony.config.LoadedColony(
        new dev.colony.config.ColonySettings("acme", "/c", null, null, 0, 0, "memory", "x"), List.of(), java.util.Set.of(),
        Map.of(), List.of(), null, List.of(repo("app", "main"), repo("lib", "trunk")), null), new PrintWriter(started, true));
    assertEquals("merge queue app: ./app → main, tests ./test.sh\nmerge queue lib: ./lib → trunk, tests ./test.sh\n",
        started.toString());
    // Started twice: the same run, given its settings again.
    var again = q.start(QUEUE, repo("app", "main"));
    var d = temporal.client.newUntypedWorkflowStub("merge/acme/app").describe();
    assertEquals(again.getRunId(), d.getExecution().getRunId());
    assertEquals("acme", d.getTypedSearchAttributes().get(AntSearchAttributes.COLONY));
    eventually(Duration.ofSeconds(20), () -> "abcdef0123".equals(q.card("app").orElseThrow().targetHead()), "the first card");
    assertEquals(List.of("app", "lib"), q.names());

    SubmitReply r = q.submit(QUEUE, repo("app", "main"), new Submission("alpha", "box", "colony/alpha", null, 2, "cli", false));
    assertEquals(new SubmitReply("alpha-1", ItemState.QUEUED, 1, "on box"), r);
    eventually(Duration.ofSeconds(20), () -> q.card("app").orElseThrow().items().size() == 1, "the item on the card");
    var refused = assertThrows(MergeQueues.MergeQueueException.class, () -> q.submit(QUEUE, repo("app", "main"),
        new Submission("nobody", "", "colony/nobody", null, 2, "cli", false)));
    assertEquals("nobody has no branch", refused.getMessage());

    MergeCommandTest.Result status = cli("merge", "status", "app");
    assertEquals(0, status.code(), status.err());
    assertTrue(status.out().startsWith("merge queue app (colony acme): main at abcdef0, land rebase, 0 landed\n"), status.out());
    assertTrue(status.out().matches("(?s).*1 +alpha-1 +alpha +queued.*"), status.out());
    MergeCommandTest.Result all = cli("merge", "status", "--json");
    assertEquals(0, all.code(), all.err());
    assertTrue(all.out().contains("\"repo\" : \"lib\""), all.out());

    MergeCommandTest.Result cancel = cli("merge", "cancel", "alpha-1");
    assertEquals(0, cancel.code(), cancel.err());
    assertTrue(cancel.out().startsWith("alpha-1: closed (cancelled by "), cancel.out());
    MergeCommandTest.Result again2 = cli("merge", "cancel", "alpha-1", "--repo", "app");
    assertEquals(1, again2.code());
    assertEquals("colony: no open item alpha-1\n", again2.err());
    MergeCommandTest.Result missing = cli("merge", "status", "nope");
    assertEquals(1, missing.code());
    assertEquals("colony: no merge queue 'nope' in colony 'acme' (colony merge status lists them)\n", missing.err());

    assertEquals(2, q.taskApproved("k7m2qx"));
    eventually(Duration.ofSeconds(20), () -> "k7m2qx".equals(q.card("lib").orElseThrow().waiting().get("approved")), "taskApproved");
  }
}
