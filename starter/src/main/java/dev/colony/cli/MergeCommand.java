package dev.colony.cli;

import dev.colony.config.LoadedColony;
import dev.colony.merge.MergeCard;
import dev.colony.merge.MergeDecision;
import dev.colony.merge.MergeRepo;
import dev.colony.merge.Submission;
import dev.colony.merge.SubmitReply;
import dev.colony.client.MergeQueues;
import dev.colony.spec.AntSpec;
import dev.colony.visibility.AntSearchAttributes;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code colony merge ...}: the colony's merge queues from a terminal. Status comes from
 * visibility and the queues' memos (no worker needed); submit and the decisions are updates to a
 * queue's workflow, answered by a worker. A refusal is the queue's one sentence, exit 1; a
 * malformed word is a usage error, exit 2.
 */
@Command(name = "merge", mixinStandardHelpOptions = true,
    description = "The colony's merge queues: each repository's ants' work lands on its target branch by itself "
        + "(rebased, tested, one item at a time). Queues are Temporal workflows (merge/<colony>/<repo>); status "
        + "needs no worker.",
    subcommands = {MergeCommand.Status.class, MergeCommand.Submit.class, MergeCommand.Approve.class,
        MergeCommand.Retry.class, MergeCommand.Cancel.class},
    footerHeading = "%nExamples:%n",
    footer = {
        "  colony merge status",
        "  colony merge status app --json",
        "  colony merge submit alpha --task k7m2qx --priority high",
        "  colony merge approve alpha-3",
        "  colony merge retry beta --repo app",
        "The colony: --colony NAME, else $COLONY_COLONY (set inside a session), else the colony directory "
            + "--dir DIR (default: the current directory when it holds colony.yaml)."})
final class MergeCommand implements Runnable {
  @Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The colony's queues as a command sees them; tests replace it with one over fake cards. */
  interface Opened extends AutoCloseable {
    String colony();

    /** The colony's running queues' cards, by name. */
    List<MergeCard> cards();

    /** One running queue's card; empty when there is none. */
    Optional<MergeCard> card(String repo);

    /** Update {@code submit} with start. */
    SubmitReply submit(MergeRepo repo, Submission submission);

    /** Update {@code decide}. */
    SubmitReply decide(String repo, MergeDecision decision);

    /** The host the ant runs on ("" when it has none, or is not running). */
    String host(String ant);

    @Override
    void close();
  }

  /** Opens the queues a command works on ({@link CliContext#queues}; a test's are in memory). */
  interface Queues {
    Opened open(Common options);
  }

  static Opened openTemporal(Common o) {
    String colony = o.colonyName();
    String taskQueue = o.temporal.taskQueue(colony);
    Temporal t = Temporal.connect(o.temporal);
    MergeQueues queues = new MergeQueues(t.client, colony);
    return new Opened() {
      @Override
      public String colony() {
        return colony;
      }

      @Override
      public List<MergeCard> cards() {
        return queues.cards();
      }

      @Override
      public Optional<MergeCard> card(String repo) {
        return queues.card(repo);
      }

      @Override
      public SubmitReply submit(MergeRepo repo, Submission submission) {
        SearchAttributeSetup.ensure(t);
        return queues.submit(taskQueue, repo, submission);
      }

      @Override
      public SubmitReply decide(String repo, MergeDecision decision) {
        return queues.decide(repo, decision);
      }

      @Override
      public String host(String ant) {
        try {
          var d = t.client.newUntypedWorkflowStub(dev.colony.spec.AntIds.workflowId(colony, ant)).describe();
          if (d.getStatus() != io.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
            return "";
          }
          String host = d.getTypedSearchAttributes().get(AntSearchAttributes.HOST);
          return host == null ? "" : host;
        } catch (RuntimeException e) {
          if (dev.colony.client.Rpc.notFound(e)) {
            return "";
          }
          throw e;
        }
      }

      @Override
      public void close() {
        t.close();
      }
    };
  }

  /** What every merge command takes: where the colony is and how to reach Temporal ({@link ColonyChoice}). */
  static final class Common extends ColonyChoice {}

  /** One merge command: opens the queues, runs, and turns a queue's refusal into one line. */
  abstract static class Base implements Callable<Integer> {
    @Mixin
    Common common;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public final Integer call() {
      check();
      try (Opened opened = CliContext.of(spec).queues().open(common)) {
        PrintWriter out = spec.commandLine().getOut();
        run(opened, out);
        out.flush();
        return 0;
      } catch (MergeQueues.MergeQueueException e) {
        throw new UserError(e.getMessage());
      }
    }

    /** Checks the arguments before anything is asked of Temporal. */
    void check() {}

    abstract void run(Opened opened, PrintWriter out);
  }

  static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,99}");

  static String word(String what, String raw) {
    String w = raw == null ? "" : raw.strip();
    if (!NAME.matcher(w).matches()) {
      throw new UsageError("'" + dev.colony.config.Problem.printable(raw, 60) + "' is not " + what
          + " (letters, digits, '.', '_' and '-')");
    }
    return w;
  }

  static String noQueue(String repo, String colony) {
    return "no merge queue '" + repo + "' in colony '" + colony + "' (colony merge status lists them)";
  }

  @Command(name = "status", mixinStandardHelpOptions = true,
      description = "The colony's merge queues (or one): the target and its head, the items in landing order, path "
          + "claims and who waits for whom, the ants that declare no paths, the last landings and the hot paths. "
          + "Reads the queues' memos: no "
          + "worker needed.",
      footerHeading = "%nExamples:%n",
      footer = {"  colony merge status", "  colony merge status app --json"})
  static final class Status extends Base {
    @Parameters(index = "0", arity = "0..1", paramLabel = "REPO", description = "A queue's name (default: all).")
    String repo;

    @Option(names = "--json", description = "Print JSON: the queue's card (or, without REPO, every card).")
    boolean json;

    @Override
    void check() {
      if (repo != null) {
        repo = word("a queue's name", repo);
      }
    }

    @Override
    void run(Opened o, PrintWriter out) {
      Instant now = Instant.now();
      if (repo != null) {
        MergeCard card = o.card(repo).orElseThrow(() -> new UserError(noQueue(repo, o.colony())));
        out.print(json ? MergeView.json(card) : MergeView.card(card, now));
        return;
      }
      List<MergeCard> cards = o.cards();
      out.print(json ? MergeView.json(cards) : MergeView.cards(o.colony(), cards, now));
    }
  }

  @Command(name = "submit", mixinStandardHelpOptions = true,
      description = "Put an ant's branch in its repository's merge queue (update 'submit'; the queue starts if it "
          + "does not run). The queue reads the branch when the item's turn comes; an ant's open item is joined, "
          + "not doubled. With --head (and review on), an approval covers exactly that commit.",
      footerHeading = "%nExamples:%n",
      footer = {"  colony merge submit alpha", "  colony merge submit alpha --task k7m2qx --priority urgent",
          "  colony merge submit alpha --head 1a2b3c4d"})
  static final class Submit extends Base {
    @Parameters(index = "0", paramLabel = "ANT", description = "The ant whose branch lands.")
    String ant;

    @Option(names = "--repo", paramLabel = "REPO",
        description = "The queue (default: the one of the ant's workspace.repo).")
    String repo;

    @Option(names = "--task", paramLabel = "ID", description = "The task the work is for (Done when it lands).")
    String task;

    @Option(names = "--priority", paramLabel = "urgent|high|normal|low", description = "Default: normal.")
    String priority;

    @Option(names = "--head", paramLabel = "SHA", description = "The commit that lands (what an approval covers; "
        + "later commits wait for their own). Default: the branch as it stands at the item's turn.")
    String head;

    private int level = Submission.NORMAL;

    @Override
    void check() {
      ant = word("an ant's name", ant);
      if (repo != null) {
        repo = word("a queue's name", repo);
      }
      if (task != null) {
        task = TaskCommand.OneTask.id(task);
      }
      if (head != null && !head.strip().matches("[0-9a-fA-F]{7,64}")) {
        throw new UsageError("'" + dev.colony.config.Problem.printable(head, 30)
            + "' is not a commit id: --head takes 7 to 64 hex digits");
      }
      if (priority != null) {
        Integer p = MergeView.PRIORITIES.get(priority.strip().toLowerCase(Locale.ROOT));
        if (p == null) {
          throw new UsageError("'" + dev.colony.config.Problem.printable(priority, 30)
              + "' is not a priority: urgent, high, normal or low");
        }
        level = p;
      }
    }

    @Override
    void run(Opened o, PrintWriter out) {
      LoadedColony config = common.config("submit reads the ant's repository from the colony's config: give --dir "
          + "DIR (or run this in the colony's directory)");
      AntSpec spec = config.ant(ant).orElseThrow(() -> new UserError("no ant named '" + ant + "' in colony '"
          + config.colony().name() + "' (ants: " + String.join(", ", config.ants().stream().map(AntSpec::name).toList())
          + ")"));
      MergeRepo queue;
      if (repo != null) {
        queue = config.mergeRepo(repo).orElseThrow(() -> new UserError("no merge queue '" + repo
            + "' in colony.yaml (merge.repos: " + String.join(", ", config.merge().stream().map(MergeRepo::name).toList())
            + ")"));
        if (spec.merge() != null && !spec.merge().name().equals(queue.name())) {
          throw new UserError("ant '" + ant + "' works on " + spec.merge().name() + ", not " + queue.name()
              + " (its workspace.repo)");
        }
      } else {
        queue = spec.merge();
        if (queue == null) {
          throw new UserError("ant '" + ant + "' has no merge queue: its workspace.repo is in none of colony.yaml's "
              + "merge.repos");
        }
      }
      String branch = spec.workspace() == null ? "colony/" + ant : spec.workspace().branchOf(ant);
      Submission s = new Submission(ant, o.host(ant), branch, task, level, CliContext.of(this.spec).who().get(), false,
          head == null ? null : head.strip().toLowerCase(Locale.ROOT), null);
      out.println(MergeView.reply(o.submit(queue, s)));
    }
  }

  /** A decision on one item: approve, retry or cancel. */
  abstract static class Decide extends Base {
    @Parameters(index = "0", paramLabel = "ITEM", description = "An item's id (alpha-3), or an ant's name (its open item).")
    String item;

    @Option(names = "--repo", paramLabel = "REPO", description = "The queue (default: the one holding the item).")
    String repo;

    abstract String action();

    /** The head the decision covers (approve only), or null. */
    String head() {
      return null;
    }

    @Override
    void check() {
      item = word("an item (alpha-3) or an ant's name", item);
      if (head() != null && !head().strip().matches("[0-9a-fA-F]{7,64}")) {
        throw new UsageError("'" + dev.colony.config.Problem.printable(head(), 30)
            + "' is not a commit id: --head takes 7 to 64 hex digits");
      }
      if (repo != null) {
        repo = word("a queue's name", repo);
      }
    }

    @Override
    void run(Opened o, PrintWriter out) {
      String queue = repo;
      if (queue == null) {
        List<MergeCard> cards = o.cards();
        MergeCard holder = MergeView.holding(cards, item);
        if (holder != null) {
          queue = holder.repo();
        } else if (cards.size() == 1) {
          queue = cards.get(0).repo(); // the queue answers for it
        } else if (cards.isEmpty()) {
          throw new UserError("colony '" + o.colony() + "' has no running merge queue");
        } else {
          throw new UserError("no open item '" + item + "' in the merge queues of colony '" + o.colony()
              + "' (colony merge status shows them; --repo names the queue)");
        }
      } else if (o.card(queue).isEmpty()) {
        throw new UserError(noQueue(queue, o.colony()));
      }
      String h = head() == null ? null : head().strip().toLowerCase(Locale.ROOT);
      out.println(MergeView.reply(o.decide(queue, new MergeDecision(item, action(), CliContext.of(spec).who().get(), h))));
    }
  }

  @Command(name = "approve", mixinStandardHelpOptions = true,
      description = "Approve an item awaiting review (review: true): it lands when its turn comes.",
      footerHeading = "%nExamples:%n", footer = {"  colony merge approve alpha-3", "  colony merge approve alpha", "  colony merge approve alpha-3 --head 1a2b3c4"})
  static final class Approve extends Decide {
    @Option(names = "--head", paramLabel = "SHA", description = "The head you reviewed (colony merge status shows "
        + "it): the approval covers the item's work up to it, not what came after. Default: all it holds now.")
    String head;

    @Override
    String action() {
      return "approve";
    }

    @Override
    String head() {
      return head;
    }
  }

  @Command(name = "retry", mixinStandardHelpOptions = true,
      description = "Put an item that needs a human (or rework) back in line, its tries reset.",
      footerHeading = "%nExamples:%n", footer = {"  colony merge retry beta-2"})
  static final class Retry extends Decide {
    @Override
    String action() {
      return "retry";
    }
  }

  @Command(name = "cancel", mixinStandardHelpOptions = true,
      description = "Take an item out of the queue (closed; the ant's next submission opens a new one).",
      footerHeading = "%nExamples:%n", footer = {"  colony merge cancel beta-2 --repo app"})
  static final class Cancel extends Decide {
    @Override
    String action() {
      return "cancel";
    }
  }
}
