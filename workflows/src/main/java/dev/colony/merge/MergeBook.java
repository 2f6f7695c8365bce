package dev.colony.merge;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * A merge queue's book, without Temporal: its items and their order (priority 0..3 with aging, then
 * submission time, then id), their state changes, the landed history, the ants' path claims and
 * where ants collide. Every collection is sorted or in insertion order, and bounded, so the queue
 * replays and its card and continue-as-new input stay small. The workflow owns one and asks it
 * every decision; the validators ask its {@code *Problem} methods.
 */
public final class MergeBook {
  /** Open items at most; a submission beyond it is refused. */
  public static final int MAX_OPEN = 200;
  /**
   * Files kept per open item (learned when it was read), for claims and the card: with
   * {@link #MAX_OPEN} they bound the continue-as-new input (well under Temporal's 2 MB payload limit).
   */
  public static final int MAX_ITEM_PATHS = 100;
  /** Closed items (landed, closed) kept for the card's and the ids' sake. */
  public static final int MAX_CLOSED = 20;
  /** Ants holding or waiting for claims at most. */
  public static final int MAX_CLAIMS = 500;
  /** Directories remembered for hot paths at most. */
  public static final int MAX_DIRS = 500;
  /** Paths kept per landing in the history. */
  public static final int MAX_LANDED_PATHS = 50;
  /** Paths shown per item or landing on the card. */
  public static final int CARD_PATHS = 20;
  /** The claim of an ant that declares no paths with {@code undeclared: everything}: it waits for any unlanded work. */
  public static final String EVERYTHING = "**";
  /** Overlapping globs or paths named in a refusal at most. */
  public static final int MAX_OVERLAP = 20;

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
  /** A commit id as a submission names it (a sha; tests' fakes use words): never an option, never a range. */
  private static final Pattern SHA = Pattern.compile("[0-9A-Za-z][0-9A-Za-z_-]{3,63}");

  /** One item as the book changes it. */
  static final class Item {
    String id;
    String ant;
    String host;
    String branch;
    String taskId;
    int priority;
    ItemState state;
    String step;
    long submittedAt;
    long updatedAt;
    int tries;
    String reason;
    String head;
    List<String> paths;
    String by;
    boolean approved;
    /** The submissions it holds, in order (never empty once opened). */
    List<ItemPart> parts = new ArrayList<>();
    /** While landing: how many parts the landing holds (fixed when it began); -1 otherwise. Never carried. */
    int landingParts = -1;

    static Item of(MergeItem m) {
      Item i = new Item();
      i.id = m.id();
      i.ant = m.ant();
      i.host = m.host();
      i.branch = m.branch();
      i.taskId = m.taskId();
      i.priority = m.priority();
      i.state = m.state();
      i.step = m.step();
      i.submittedAt = m.submittedAt();
      i.updatedAt = m.updatedAt();
      i.tries = m.tries();
      i.reason = m.reason();
      i.head = m.head();
      i.paths = m.paths();
      i.by = m.by();
      i.approved = m.approved();
      if (m.parts().isEmpty()) { // carried by a run before parts: one submission, as it was approved
        i.parts.add(new ItemPart(m.taskId(), null, null, m.approved()));
      } else {
        i.parts.addAll(m.parts());
      }
      return i;
    }

    /** How many parts from the first on are approved: those land (with review). */
    int approvedParts() {
      int n = 0;
      while (n < parts.size() && parts.get(n).approved()) {
        n++;
      }
      return n;
    }

    /** With review: the head the approval covers (the last approved part's), or null. */
    String approvedHead() {
      int n = approvedParts();
      return n == 0 ? null : parts.get(n - 1).head();
    }

    /** taskId (the first task) and approved follow the parts. */
    void sync() {
      taskId = null;
      for (ItemPart p : parts) {
        if (p.taskId() != null) {
          taskId = p.taskId();
          break;
        }
      }
      approved = approvedParts() > 0;
    }

    MergeItem record(int maxPaths, boolean review) {
      return new MergeItem(id, ant, host, branch, taskId, priority, state, step, submittedAt, updatedAt, tries, reason,
          head, paths.size() > maxPaths ? paths.subList(0, maxPaths) : paths, by, approved, parts,
          review ? approvedHead() : null);
    }
  }

  private MergeItem rec(Item i, int maxPaths) {
    return i.record(maxPaths, repo.review());
  }

  private MergeRepo repo;
  private final List<Item> items = new ArrayList<>();
  private final List<Landed> landed = new ArrayList<>();
  private final TreeMap<String, String> landedUpTo = new TreeMap<>();
  private final TreeMap<String, Integer> counters = new TreeMap<>();
  private final TreeMap<String, PathClaim> claims = new TreeMap<>();
  private final TreeMap<String, PathClaim> waiting = new TreeMap<>();
  /** Who each waiting ant waits for: "beta: src/api/**". */
  private final TreeMap<String, String> waitingFor = new TreeMap<>();
  private final TreeMap<String, List<String>> dirs = new TreeMap<>();
  /** Per ant, the globs of its submitted work that has not landed: held until it lands or is dropped. */
  private final TreeMap<String, List<String>> held = new TreeMap<>();
  private final TreeMap<String, Long> heldAt = new TreeMap<>();
  private final TreeMap<String, Long> claimedAt = new TreeMap<>();
  /** The ants known to declare no paths (from their submissions and their {@code **} claims), for the card. */
  private final TreeSet<String> undeclared = new TreeSet<>();
  /** Per waiting ant, when it began to wait: the first to wait is served first. */
  private final TreeMap<String, Long> waitingSince = new TreeMap<>();
  /** Waiting ants told their paths are free (not carried: after continue-as-new they are told again). */
  private final TreeSet<String> told = new TreeSet<>();
  private long seq;
  /** Items skipped until a moment (their host did not answer): id → epoch ms. Not carried across continue-as-new. */
  private final TreeMap<String, Long> holdUntil = new TreeMap<>();
  /** Submissions that came while their ant's item was landing: they open the ant's next item after it. */
  private final TreeMap<String, Submission> later = new TreeMap<>();
  private long landedCount;
  /**
   * Ants that run a rework as a session of their own (their last submission said {@code fix}):
   * when their work is sent back, its tasks are not requeued.
   */
  private final TreeSet<String> reworkSessions = new TreeSet<>();

  private MergeBook(MergeRepo repo) {
    this.repo = repo;
  }

  public static MergeBook of(MergeQueueState s) {
    MergeBook b = new MergeBook(s.repo());
    if (s.items() != null) {
      s.items().forEach(m -> b.items.add(Item.of(m)));
    }
    for (Item i : b.items) {
      if (i.state == ItemState.LANDING) { // a run never continues mid-landing; an old input might
        i.state = ItemState.QUEUED;
        i.step = null;
      }
    }
    if (s.landed() != null) {
      b.landed.addAll(s.landed());
    }
    if (s.landedUpTo() != null) {
      b.landedUpTo.putAll(s.landedUpTo());
    }
    if (s.counters() != null) {
      b.counters.putAll(s.counters());
    }
    if (s.claims() != null) {
      b.claims.putAll(s.claims());
    }
    if (s.waiting() != null) {
      b.waiting.putAll(s.waiting());
    }
    if (s.hotPaths() != null) {
      s.hotPaths().forEach((k, v) -> b.dirs.put(k, new ArrayList<>(v)));
    }
    b.landedCount = s.landedCount();
    if (s.claimOrder() != null) {
      s.claimOrder().held().forEach((k, v) -> b.held.put(k, List.copyOf(v)));
      b.heldAt.putAll(s.claimOrder().heldAt());
      b.claimedAt.putAll(s.claimOrder().claimedAt());
      b.waitingSince.putAll(s.claimOrder().waitingSince());
      b.seq = s.claimOrder().seq();
      b.undeclared.addAll(s.claimOrder().undeclared());
    }
    if (s.reworkSessions() != null) {
      b.reworkSessions.addAll(s.reworkSessions());
    }
    return b;
  }

  /** What the next run carries. */
  public MergeQueueState state() {
    List<MergeItem> out = new ArrayList<>();
    for (Item i : items) {
      out.add(rec(i, BranchHead.MAX_PATHS));
    }
    TreeMap<String, List<String>> hot = new TreeMap<>();
    dirs.forEach((k, v) -> hot.put(k, List.copyOf(v)));
    return new MergeQueueState(repo, out, List.copyOf(landed), new TreeMap<>(landedUpTo), new TreeMap<>(counters),
        new TreeMap<>(claims), new TreeMap<>(waiting), hot, landedCount,
        new ClaimOrder(new TreeMap<>(held), new TreeMap<>(heldAt), new TreeMap<>(claimedAt),
            new TreeMap<>(waitingSince), seq, List.copyOf(undeclared)), carriedReworkSessions());
  }

  /** The ants of {@link #reworkSessions} that have an open item (only those are asked about). */
  private List<String> carriedReworkSessions() {
    List<String> out = new ArrayList<>();
    for (String ant : reworkSessions) {
      if (open(ant) != null) {
        out.add(ant);
      }
    }
    return out;
  }

  /**
   * Whether the ant runs a rework as a session of its own (its last submission as an ant said
   * {@code fix}): its item's rework is that session's, and the item's tasks stay where they are.
   */
  public boolean reworksInSessions(String ant) {
    return reworkSessions.contains(ant);
  }

  public MergeRepo repo() {
    return repo;
  }

  public void configure(MergeRepo r) {
    this.repo = r;
  }

  public String landedUpTo(String ant) {
    return landedUpTo.get(ant);
  }

  // ---- validation ----

  /** Whether {@code name} is an ant's (or a repository's) name: letters, digits, '.', '_', '-'. */
  public static boolean name(String name) {
    return name != null && NAME.matcher(name).matches();
  }

  /** What is wrong with a submission, in one sentence; null when it may be taken. */
  public String submitProblem(Submission s) {
    if (s == null) {
      return "a submission names the ant whose branch to land";
    }
    if (!name(s.ant())) {
      return "ant name " + MergeText.line(String.valueOf(s.ant()), 80)
          + " is not valid (letters, digits, '.', '_', '-'; at most 64)";
    }
    if (s.host() != null && !s.host().isEmpty() && !name(s.host())) {
      return "host " + MergeText.line(s.host(), 80) + " is not a host name";
    }
    if (s.changed() != null && s.changed().size() > BranchHead.MAX_PATHS) {
      return "a submission names at most " + BranchHead.MAX_PATHS + " changed files, not " + s.changed().size();
    }
    if (s.branch() == null || s.branch().isBlank() || s.branch().length() > 200 || !branch(s.branch())) {
      return "branch " + MergeText.line(String.valueOf(s.branch()), 80) + " is not a branch name";
    }
    if (s.priority() < 0 || s.priority() > 3) {
      return "priority " + s.priority() + " is out of range: 0 (urgent) to 3 (low)";
    }
    if (s.taskId() != null && (s.taskId().isBlank() || s.taskId().length() > 100 || !printableWord(s.taskId()))) {
      return "task id " + MergeText.line(s.taskId(), 80) + " is not a task id";
    }
    if (s.by() != null && s.by().length() > 100) {
      return "who submitted is longer than 100 characters";
    }
    for (String sha : new String[] {s.head(), s.base()}) {
      if (sha != null && !SHA.matcher(sha).matches()) {
        return "commit " + MergeText.line(sha, 80) + " is not a commit id (4 to 64 hex digits)";
      }
    }
    Item open = open(s.ant());
    int maxParts = repo.review() ? ItemPart.MAX : ItemPart.MAX_TASKS;
    if (open != null && open.state != ItemState.LANDING && open.parts.size() >= maxParts && !holdsPart(open, s)) {
      return open.id + " holds " + maxParts + " submissions already: wait for it to land";
    }
    if (open == null && openCount() >= MAX_OPEN) {
      return "the queue of " + repo.name() + " is full (" + MAX_OPEN + " open items): wait for some to land";
    }
    return null;
  }

  private static boolean branch(String b) {
    if (b.startsWith("-") || b.startsWith("/") || b.endsWith("/") || b.endsWith(".lock") || b.contains("..")
        || b.contains("//") || b.contains("@{")) {
      return false;
    }
    for (int i = 0; i < b.length(); i++) {
      char c = b.charAt(i);
      if (c <= ' ' || c == 0x7f || "~^:?*[\\".indexOf(c) >= 0) {
        return false;
      }
    }
    return true;
  }

  private static boolean printableWord(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c <= ' ' || c == 0x7f || Character.isISOControl(c)) {
        return false;
      }
    }
    return true;
  }

  /** What is wrong with a decision, in one sentence; null when it applies now. */
  public String decideProblem(MergeDecision d) {
    if (d == null || d.item() == null || d.item().isBlank()) {
      return "a decision names an item (alpha-3) or an ant";
    }
    if (d.action() == null || !List.of("approve", "retry", "cancel").contains(d.action())) {
      return "the action " + MergeText.line(String.valueOf(d.action()), 40) + " is none of approve, retry, cancel";
    }
    if (d.by() != null && d.by().length() > 100) {
      return "who decided is longer than 100 characters";
    }
    if (d.head() != null && !SHA.matcher(d.head()).matches()) {
      return "commit " + MergeText.line(d.head(), 80) + " is not a commit id (4 to 64 hex digits)";
    }
    Item i = find(d.item().strip());
    if (i == null) {
      return "no open item " + MergeText.line(d.item(), 80) + " in the queue of " + repo.name();
    }
    if (!i.state.open()) {
      return "item " + i.id + " is " + words(i.state) + " already";
    }
    if ("approve".equals(d.action()) && d.head() != null && partAt(i, d.head()) < 0) {
      return "item " + i.id + " holds no submission at " + MergeText.shortSha(d.head()) + " (its heads: "
          + MergeText.line(String.join(", ", i.parts.stream().map(p -> MergeText.shortSha(p.head())).toList()), 200)
          + "): look again, it changed";
    }
    return switch (d.action()) {
      case "approve" -> i.state == ItemState.AWAITING_REVIEW || (repo.review() && i.approvedParts() < i.parts.size()
          && (i.state == ItemState.QUEUED || i.state == ItemState.REWORK)) ? null
          : "item " + i.id + " is " + words(i.state) + ", not awaiting review";
      case "retry" -> i.state == ItemState.NEEDS_HUMAN || i.state == ItemState.REWORK ? null
          : "item " + i.id + " is " + words(i.state) + ": only an item in rework or needing a human is retried";
      default -> i.state == ItemState.LANDING ? "item " + i.id + " is landing now; cancel it after, if it does not land"
          : null;
    };
  }

  /** What is wrong with a claim, in one sentence; null when it may be answered. */
  public String claimProblem(PathClaim c) {
    if (c == null || !name(c.ant())) {
      return "a claim names a valid ant (letters, digits, '.', '_', '-')";
    }
    if (c.globs().size() > PathGlobs.MAX_GLOBS) {
      return "a claim holds at most " + PathGlobs.MAX_GLOBS + " globs, not " + c.globs().size();
    }
    for (String g : c.globs()) {
      String p = PathGlobs.problem(g);
      if (p != null) {
        return p;
      }
    }
    if (c.taskId() != null && c.taskId().length() > 100) {
      return "the claim's task id is longer than 100 characters";
    }
    if (c.antWorkflowId() != null && (c.antWorkflowId().length() > 300 || !printableWord(c.antWorkflowId()))) {
      return "the claim's workflow id is not valid";
    }
    if (!claims.containsKey(c.ant()) && !waiting.containsKey(c.ant()) && claims.size() + waiting.size() >= MAX_CLAIMS) {
      return "the queue of " + repo.name() + " holds " + MAX_CLAIMS + " claims already";
    }
    return null;
  }

  // ---- items ----

  private int openCount() {
    int n = 0;
    for (Item i : items) {
      if (i.state.open()) {
        n++;
      }
    }
    return n;
  }

  /** The ant's open item, or null. */
  Item open(String ant) {
    for (Item i : items) {
      if (i.ant.equals(ant) && i.state.open()) {
        return i;
      }
    }
    return null;
  }

  Item get(String id) {
    for (Item i : items) {
      if (i.id.equals(id)) {
        return i;
      }
    }
    return null;
  }

  /** An item by id, or an ant's open item by the ant's name. */
  Item find(String idOrAnt) {
    Item i = get(idOrAnt);
    return i != null ? i : open(idOrAnt);
  }

  public MergeItem item(String id) {
    Item i = get(id);
    return i == null ? null : rec(i, BranchHead.MAX_PATHS);
  }

  /**
   * Opens an item for the ant's branch, or joins its open one as a part of its own (the item
   * carries every task whose work it holds). With review, an approval covers the parts it
   * approved and no later one: new commits wait for their own approval. Validate first
   * ({@link #submitProblem}).
   */
  public SubmitReply submit(Submission s, long now) {
    if (s.fix() != null) {
      reworkSessions.add(s.ant());
    } else if ("ant".equals(s.by())) {
      reworkSessions.remove(s.ant()); // an older ant's run (a human's submission says nothing about its ant)
    }
    SubmitReply reply = submitWork(s, now);
    holdChanged(s);
    return reply;
  }

  /**
   * An ant that declares no paths: its submitted work holds the files its branch changed (as its
   * open item's files, which claims are checked against), until that work lands or is dropped. An
   * item landing now read its branch already; the submission that came meanwhile waits aside (its
   * files are held from there, see {@link #conflict}) and joins or follows it. The read at the turn
   * adds to what the item holds and drops nothing (with review the read is the approved head's).
   */
  private void holdChanged(Submission s) {
    if (s.changed() == null) {
      return;
    }
    markUndeclared(s.ant());
    Item i = open(s.ant());
    if (i == null || i.state == ItemState.LANDING) {
      return;
    }
    List<String> p = new ArrayList<>(i.paths);
    for (String f : s.changed()) {
      String n = f == null || f.length() > 1000 ? null : PathGlobs.normalize(f);
      if (n != null && !n.isEmpty() && !p.contains(n) && p.size() < MAX_ITEM_PATHS) {
        p.add(n);
      }
    }
    i.paths = List.copyOf(p);
  }

  private void markUndeclared(String ant) {
    if (undeclared.contains(ant) || undeclared.size() < MAX_CLAIMS) {
      undeclared.add(ant);
    }
  }

  /** The ants known to declare no paths, sorted (for the card and tests). */
  public List<String> undeclared() {
    return List.copyOf(undeclared);
  }

  private SubmitReply submitWork(Submission s, long now) {
    Item i = open(s.ant());
    // The fix of an item sent back: its paths are held with that item already; the ant's current
    // claim is for the task in hand, which must stay its own (a landing of the fix frees only it).
    boolean fixOfRework = i != null && i.state == ItemState.REWORK && isFix(s);
    if (!(fixOfRework && Boolean.TRUE.equals(s.fix()))) {
      holdClaim(s.ant()); // (a submission from a human or an older ant holds the claim it came with, as before)
    }
    String by = s.by() == null || s.by().isBlank() ? "ant" : MergeText.line(s.by(), 100);
    ItemPart part = part(s);
    if (i != null) {
      if (i.state == ItemState.LANDING) {
        later.put(s.ant(), s); // its branch was read already: the new work is the next item
        return new SubmitReply(i.id, i.state, 0, i.id + " is landing now; the newer work follows it");
      }
      i.host = s.host() == null ? "" : s.host();
      i.branch = s.branch();
      i.priority = Math.min(i.priority, s.priority());
      i.by = by;
      i.updatedAt = now;
      if (fixOfRework && repo.review()) {
        // The fix holds every earlier part's work, rebased: each is reviewed again, at the fix's head.
        // Its tasks may be Done on the board already (approved before the rework): only an approval
        // given after the fix came approves it.
        List<ItemPart> again = new ArrayList<>();
        for (ItemPart p : i.parts) {
          again.add(p.unapprovedFresh(s.head()));
        }
        i.parts = again;
      }
      // A submission for no task joining an item sent back is its fix (the ant's rework session):
      // the item's work again, not a part of its own.
      if (!(fixOfRework && part.taskId() == null && !i.parts.isEmpty())) {
        join(i, part);
      }
      i.sync();
      if (i.state == ItemState.REWORK && !fixOfRework) {
        // other work of the ant (its next task) joins an item sent back: it waits for the fix
        holdUntil.remove(i.id);
        return reply(i, "joined " + i.id + ", which waits for its rework", now);
      }
      if (i.state == ItemState.REWORK) {
        i.state = ready(i);
        i.reason = "resubmitted after rework (try " + (i.tries + 1) + ")";
      } else if (i.state == ItemState.AWAITING_REVIEW && !needsReview(i)) {
        i.state = ItemState.QUEUED;
      } else if (i.state == ItemState.NEEDS_HUMAN) {
        return reply(i, "joined " + i.id + ", which waits for a human (colony merge retry " + i.id + ")", now);
      }
      holdUntil.remove(i.id);
      String pinned = repo.review() && i.state == ItemState.QUEUED && i.approvedParts() < i.parts.size()
          ? " (its approval covers up to " + MergeText.shortSha(i.approvedHead()) + "; the newer work waits for its own)"
          : "";
      return reply(i, "joined " + i.id + pinned, now);
    }
    i = openItem(s.ant(), s.host() == null ? "" : s.host(), s.branch(), s.priority(), by, List.of(part), now);
    trimClosed();
    return reply(i, "opened " + i.id, now);
  }

  /** Whether the submission is the fix of the ant's item sent back for rework (it ends the rework). */
  public boolean fixOfRework(Submission s) {
    Item i = s == null ? null : open(s.ant());
    return i != null && i.state == ItemState.REWORK && isFix(s);
  }

  /** The last part whose head is {@code head} (or starts with it, at least 7 characters), or -1. */
  private static int partAt(Item i, String head) {
    String h = head.toLowerCase(java.util.Locale.ROOT);
    for (int k = i.parts.size() - 1; k >= 0; k--) {
      String p = i.parts.get(k).head();
      if (p != null && (p.equalsIgnoreCase(h) || h.length() >= 7 && p.toLowerCase(java.util.Locale.ROOT).startsWith(h))) {
        return k;
      }
    }
    return -1;
  }

  /** A submission as a part: without review only its task counts (the branch is read at the turn). */
  /** A new open item of the ant (numbered after its last), holding {@code parts}, in line. */
  private Item openItem(String ant, String host, String branch, int priority, String by, List<ItemPart> parts, long now) {
    int n = counters.getOrDefault(ant, 0) + 1;
    counters.put(ant, n);
    Item i = new Item();
    i.id = ant + "-" + n;
    i.ant = ant;
    i.host = host;
    i.branch = branch;
    i.priority = priority;
    i.by = by;
    i.parts.addAll(parts);
    i.sync();
    i.submittedAt = now;
    i.updatedAt = now;
    i.paths = List.of();
    i.state = ready(i);
    items.add(i);
    return i;
  }

  /**
   * Whether a submission ends an item's rework: the rework session's own (fix true), or one from a
   * human or an ant that does not run reworks as sessions of their own (fix null: as before); not
   * other work of an ant that does (fix false).
   */
  private static boolean isFix(Submission s) {
    return s.fix() == null || s.fix();
  }

  private ItemPart part(Submission s) {
    if (!repo.review()) {
      return new ItemPart(s.taskId(), null, null, s.approved());
    }
    ItemPart p = new ItemPart(s.taskId(), s.head(), s.base(), s.approved());
    // later work of a task whose approved work landed already (its task is Done on the board for that)
    return !p.approved() && landedApproved(p.taskId()) ? p.unapprovedFresh(p.head()) : p;
  }

  /** Whether approved work of the task landed (among the landings kept). */
  private boolean landedApproved(String taskId) {
    if (taskId == null) {
      return false;
    }
    for (Landed l : landed) {
      if (taskId.equals(l.taskId()) || l.taskIds().contains(taskId)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the submission is one the item holds already (the same task at the same head). */
  private boolean holdsPart(Item i, Submission s) {
    ItemPart q = part(s);
    for (ItemPart p : i.parts) {
      if (same(p.taskId(), q.taskId()) && same(p.head(), q.head())) {
        return true;
      }
    }
    return false;
  }

  /**
   * A submission joins the item. The same task at the same head again is nothing new (an approval
   * it brings counts); without review a task's part takes the newer head; with review the last
   * part's newer head replaces it only while that part is unapproved (the reviewer sees the newer
   * head), else it is a new part that needs an approval of its own.
   */
  private void join(Item i, ItemPart part) {
    for (int k = 0; k < i.parts.size(); k++) {
      ItemPart p = i.parts.get(k);
      if (same(p.taskId(), part.taskId()) && same(p.head(), part.head())) {
        if (part.approved() && !p.approved()) {
          i.parts.set(k, p.approve());
        }
        return;
      }
    }
    if (!repo.review()) {
      for (int k = 0; k < i.parts.size(); k++) {
        ItemPart p = i.parts.get(k);
        if (same(p.taskId(), part.taskId())) {
          i.parts.set(k, new ItemPart(p.taskId(), part.head(), p.base(), p.approved() || part.approved()));
          return;
        }
      }
    } else if (!i.parts.isEmpty()) {
      int last = i.parts.size() - 1;
      ItemPart p = i.parts.get(last);
      if (same(p.taskId(), part.taskId()) && !p.approved()) {
        i.parts.set(last, new ItemPart(p.taskId(), part.head(), p.base() != null ? p.base() : part.base(),
            part.approved(), part.approved() ? null : p.fresh()));
        return;
      }
      if (!part.approved() && part.taskId() != null && approvedTask(i, part.taskId())) {
        // later work of a task approved already: its task is Done on the board once the earlier part
        // lands, which is no approval of this work
        i.parts.add(part.unapprovedFresh(part.head()));
        return;
      }
    }
    i.parts.add(part);
  }

  private static boolean approvedTask(Item i, String taskId) {
    for (ItemPart p : i.parts) {
      if (taskId.equals(p.taskId()) && p.approved()) {
        return true;
      }
    }
    return false;
  }

  /** With review: nothing of it is approved yet. */
  private boolean needsReview(Item i) {
    return repo.review() && i.approvedParts() == 0;
  }

  private ItemState ready(Item i) {
    return needsReview(i) ? ItemState.AWAITING_REVIEW : ItemState.QUEUED;
  }

  private SubmitReply reply(Item i, String what, long now) {
    int pos = position(i.id, now);
    String where = switch (i.state) {
      case QUEUED -> pos == 1 ? "next to land" : "number " + pos + " in line";
      case AWAITING_REVIEW -> "awaiting review" + (i.taskId == null ? " (colony merge approve " + i.id + ")"
          : " (its task " + i.taskId + " approved, or colony merge approve " + i.id + ")");
      default -> words(i.state);
    };
    if (what.contains("waits for a human")) {
      return new SubmitReply(i.id, i.state, 0, what);
    }
    return new SubmitReply(i.id, i.state, i.state == ItemState.QUEUED ? pos : 0, what + ": " + where);
  }

  /** The queued items in landing order (the best first), held ones left out. */
  public List<MergeItem> line(long now) {
    List<Item> q = queued(now, true);
    List<MergeItem> out = new ArrayList<>();
    q.forEach(i -> out.add(rec(i, BranchHead.MAX_PATHS)));
    return out;
  }

  private List<Item> queued(long now, boolean skipHeld) {
    List<Item> q = new ArrayList<>();
    for (Item i : items) {
      if (i.state == ItemState.QUEUED && !(skipHeld && holdUntil.getOrDefault(i.id, 0L) > now)) {
        q.add(i);
      }
    }
    long aging = repo.agingSeconds();
    q.sort(Comparator.comparingLong((Item i) -> -rank(i.priority, i.submittedAt, now, aging))
        .thenComparingLong(i -> i.submittedAt)
        .thenComparing(i -> i.id));
    return q;
  }

  /** The effective rank: the priority's weight (0 urgent: 3, 3 low: 0) plus one per {@code agingSeconds} waited. */
  public static long rank(int priority, long submittedAt, long now, long agingSeconds) {
    long waited = Math.max(0, now - submittedAt);
    long steps = agingSeconds <= 0 ? 0 : waited / (agingSeconds * 1000);
    return (3 - Math.max(0, Math.min(3, priority))) + steps;
  }

  /** The next item to land now, or null. */
  public MergeItem next(long now) {
    List<Item> q = queued(now, true);
    return q.isEmpty() ? null : rec(q.get(0), BranchHead.MAX_PATHS);
  }

  /** Whether an item is queued and not held back. */
  public boolean ready(long now) {
    return !queued(now, true).isEmpty();
  }

  /** When the first held item may be tried again; 0 when none is held. */
  public long nextHoldEnd() {
    long min = 0;
    for (Item i : items) {
      Long until = holdUntil.get(i.id);
      if (i.state == ItemState.QUEUED && until != null && (min == 0 || until < min)) {
        min = until;
      }
    }
    return min;
  }

  /** 1 = next to land among the queued ones; 0 when not queued. */
  int position(String id, long now) {
    List<Item> q = queued(now, false);
    for (int k = 0; k < q.size(); k++) {
      if (q.get(k).id.equals(id)) {
        return k + 1;
      }
    }
    return 0;
  }

  /** The task ids of the items awaiting review, sorted. */
  public List<String> awaitingTasks() {
    TreeSet<String> ids = new TreeSet<>();
    for (Item i : items) {
      if (i.state == ItemState.AWAITING_REVIEW) {
        for (ItemPart p : i.parts) {
          if (p.taskId() != null && !p.approved()) {
            ids.add(p.taskId());
          }
        }
      }
    }
    return List.copyOf(ids);
  }

  /** The item starts landing. */
  public void landing(String id, long now) {
    Item i = get(id);
    i.landingParts = -1;
    i.landingParts = landingParts(i);
    i.state = ItemState.LANDING;
    i.step = "publishing";
    i.reason = null;
    i.updatedAt = now;
    holdUntil.remove(id);
  }

  public void step(String id, String step, long now) {
    Item i = get(id);
    i.step = step;
    i.updatedAt = now;
  }

  /** What its branch holds now (read at its turn): the head and the changed files. */
  public void read(String id, BranchHead b, long now) {
    Item i = get(id);
    i.head = b.head();
    List<String> p = b.paths();
    if (undeclared.contains(i.ant)) {
      // An ant that declares no paths: what it submitted stays held too (with review the read is the
      // approved head's, and the later, unapproved parts' files are unlanded all the same).
      List<String> all = new ArrayList<>(i.paths);
      for (String f : p) {
        if (!all.contains(f)) {
          all.add(f);
        }
      }
      p = all;
    }
    i.paths = p.size() > MAX_ITEM_PATHS ? List.copyOf(p.subList(0, MAX_ITEM_PATHS)) : List.copyOf(p);
    i.updatedAt = now;
  }

  /** Back in line, skipped until {@code until} (its host did not answer, or the target kept moving). */
  public void hold(String id, String reason, long until, boolean toBack, long now) {
    Item i = get(id);
    i.state = ItemState.QUEUED;
    i.step = null;
    i.reason = MergeText.line(reason, MergeText.MAX_LINE);
    i.updatedAt = now;
    if (toBack) {
      i.submittedAt = now;
    }
    if (until > now) {
      holdUntil.put(id, until);
    }
  }

  /** A conflict or a red test: REWORK, or NEEDS_HUMAN once its tries reach the repository's max. Returns the new state. */
  public ItemState rework(String id, String reason, long now) {
    Item i = get(id);
    i.tries++;
    i.step = null;
    i.reason = MergeText.line(reason, MergeText.MAX_LINE);
    i.updatedAt = now;
    if (repo.review()) { // the fix is new work: it is reviewed again
      List<ItemPart> again = new ArrayList<>();
      for (ItemPart p : i.parts) {
        again.add(p.unapprovedFresh(p.head()));
      }
      i.parts = again;
      i.sync();
    }
    i.state = i.tries >= Math.max(1, repo.maxTries()) ? ItemState.NEEDS_HUMAN : ItemState.REWORK;
    return i.state;
  }

  /** A failure no rework fixes: a human decides. */
  public void needsHuman(String id, String reason, long now) {
    Item i = get(id);
    i.state = ItemState.NEEDS_HUMAN;
    i.step = null;
    i.reason = MergeText.line(reason, MergeText.MAX_LINE);
    i.updatedAt = now;
  }

  /** Closed: nothing to land, or cancelled. */
  public void close(String id, String reason, long now) {
    Item i = get(id);
    i.state = ItemState.CLOSED;
    i.step = null;
    i.reason = MergeText.line(reason, MergeText.MAX_LINE);
    i.updatedAt = now;
    holdUntil.remove(id);
    workDone(i.ant);
    trimClosed();
  }

  /**
   * Landed: the ant's next work starts after {@code l.from()}, the history and hot paths learn it,
   * (the workflow releases the ant's claim). A submission that came while it landed waits in
   * {@link #takeLater}.
   */
  public List<String> landed(String id, Landed l, long now) {
    Item i = get(id);
    // With review only the approved parts landed (up to the approved head): the rest is the ant's next item.
    int n = landingParts(i);
    List<ItemPart> rest = new ArrayList<>(i.parts.subList(n, i.parts.size()));
    i.parts = new ArrayList<>(i.parts.subList(0, n));
    i.sync();
    List<String> tasks = rec(i, 0).taskIds();
    i.state = ItemState.LANDED;
    i.step = null;
    i.reason = l.pullRequest() != null ? "pull request " + MergeText.line(l.pullRequest(), 200) : null;
    i.head = l.from();
    i.updatedAt = now;
    if (l.pullRequest() == null) {
      // On the target: the ant's next work starts after it. An opened pull request is not on the
      // target yet, so the next item carries its commits too (the branch is pushed whole).
      landedUpTo.put(i.ant, l.from());
    }
    List<String> paths = l.paths().size() > MAX_LANDED_PATHS ? l.paths().subList(0, MAX_LANDED_PATHS) : l.paths();
    landed.add(0, l.withPaths(paths));
    while (landed.size() > MergeCard.MAX_LANDED) {
      landed.remove(landed.size() - 1);
    }
    landedCount++;
    learn(i.ant, i.paths.isEmpty() ? l.paths() : i.paths);
    if (!rest.isEmpty()) {
      Item next = openItem(i.ant, i.host, i.branch, i.priority, i.by, rest, now);
      if (undeclared.contains(i.ant)) {
        next.paths = i.paths; // what its branch changed: the work after the approved head is still unlanded
      }
      next.reason = "the work after " + MergeText.shortSha(l.from()) + ", which " + i.id + " landed";
    }
    if (rest.isEmpty()) {
      workDone(i.ant); // else the work after the approved head is still submitted and unlanded: held
    }
    trimClosed();
    return tasks;
  }

  /**
   * A submission that came while the ant's item landed, when the item did not land (held, sent
   * back, or waiting for a human): it joins the item as a part, and the item's state stays.
   */
  public void rejoinLater(String ant) {
    Submission s = later.remove(ant);
    Item i = open(ant);
    if (s != null && i != null && i.state != ItemState.LANDING && submitProblem(s) == null) {
      ItemPart p = part(s);
      join(i, repo.review() && i.state == ItemState.REWORK ? p.unapprovedFresh(p.head()) : p);
      i.sync();
      holdChanged(s);
    }
  }

  /** A submission that came while the ant's item landed, taken when it did not land (it joins the item). */
  public Submission takeLater(String ant) {
    return later.remove(ant);
  }

  private void learn(String ant, List<String> paths) {
    TreeSet<String> ds = new TreeSet<>();
    for (String p : paths) {
      int slash = p.lastIndexOf('/');
      ds.add(slash < 0 ? "." : p.substring(0, slash));
    }
    for (String d : ds) {
      List<String> ants = dirs.computeIfAbsent(d, k -> new ArrayList<>());
      if (!ants.contains(ant)) {
        ants.add(ant);
        ants.sort(Comparator.naturalOrder());
        while (ants.size() > 20) {
          ants.remove(ants.size() - 1);
        }
      }
    }
    while (dirs.size() > MAX_DIRS) { // forget a directory only one ant changed first, else the first one
      String drop = null;
      for (Map.Entry<String, List<String>> e : dirs.entrySet()) {
        if (e.getValue().size() < 2) {
          drop = e.getKey();
          break;
        }
      }
      dirs.remove(drop == null ? dirs.firstKey() : drop);
    }
  }

  /** Applies a decision (validated). Returns the item's id. */
  public MergeItem decide(MergeDecision d, long now) {
    Item i = find(d.item().strip());
    String by = d.by() == null || d.by().isBlank() ? "a human" : MergeText.line(d.by(), 100);
    switch (d.action()) {
      case "approve" -> {
        // What the human saw: the parts up to the head they named, else every part it holds now.
        int upTo = d.head() == null ? i.parts.size() - 1 : partAt(i, d.head());
        for (int k = 0; k <= upTo; k++) {
          i.parts.set(k, i.parts.get(k).approve());
        }
        i.sync();
        if (i.state == ItemState.AWAITING_REVIEW) {
          i.state = ItemState.QUEUED;
        }
        i.reason = "approved by " + by + covers(i);
      }
      case "retry" -> {
        i.tries = 0;
        i.state = ready(i);
        i.reason = "retried by " + by;
        holdUntil.remove(i.id);
      }
      default -> {
        i.state = ItemState.CLOSED;
        i.reason = "cancelled by " + by;
        holdUntil.remove(i.id);
        workDone(i.ant); // the dropped work holds no paths any more
      }
    }
    i.step = null;
    i.by = by;
    i.updatedAt = now;
    MergeItem out = rec(i, BranchHead.MAX_PATHS);
    trimClosed();
    return out;
  }

  /**
   * A human approved the task (its approve on the board): its parts awaiting review are approved and
   * their items go in line. An item in rework is not: its fix does not exist yet, and is approved
   * when it has come. Returns whether an item went in line.
   */
  public boolean taskApproved(String taskId, long now) {
    return approveTask(taskId, false, now);
  }

  /**
   * The board says the task is Done (the review check): that approves its parts awaiting review,
   * except a part that came after the task was approved (a rework's fix, later work of the task),
   * which waits for an approval given after it.
   */
  public boolean taskDone(String taskId, long now) {
    return approveTask(taskId, true, now);
  }

  private boolean approveTask(String taskId, boolean done, long now) {
    boolean any = false;
    for (Item i : items) {
      if (taskId == null || !i.state.open() || i.state == ItemState.REWORK) {
        continue;
      }
      boolean changed = false;
      for (int k = 0; k < i.parts.size(); k++) {
        ItemPart p = i.parts.get(k);
        if (taskId.equals(p.taskId()) && !p.approved() && !(done && p.isFresh())) {
          i.parts.set(k, p.approve());
          changed = true;
        }
      }
      if (!changed) {
        continue;
      }
      i.sync();
      if (i.state == ItemState.AWAITING_REVIEW && i.approved) {
        i.state = ItemState.QUEUED;
        i.reason = "task " + taskId + " approved" + covers(i);
        i.updatedAt = now;
        any = true;
      }
    }
    return any;
  }

  /** " (up to 1a2b3c4, after 0f0e0d0)": which commits an approval covers, when the submissions said. */
  private String covers(Item i) {
    if (!repo.review()) {
      return "";
    }
    String head = i.approvedHead();
    if (head == null) {
      return " (the branch as it stands at its turn: the submission named no commit)";
    }
    String base = i.parts.isEmpty() ? null : i.parts.get(0).base();
    if (base == null) {
      base = landedUpTo.get(i.ant);
    }
    return " (" + MergeText.range(base, head) + ")";
  }

  /** The tasks whose work lands with the item: with review the approved parts', else all of them. */
  public List<String> landingTasks(String id) {
    Item i = get(id);
    int n = landingParts(i);
    List<String> out = new ArrayList<>();
    for (ItemPart p : i.parts.subList(0, n)) {
      if (p.taskId() != null && !out.contains(p.taskId())) {
        out.add(p.taskId());
      }
    }
    return out;
  }

  /**
   * The parts a landing holds: with review the approved ones (as they were when it began: an
   * approval during the landing is for the next one), else all of them.
   */
  private int landingParts(Item i) {
    if (i.state == ItemState.LANDING && i.landingParts >= 0) {
      return Math.min(i.landingParts, i.parts.size());
    }
    return repo.review() && i.approvedParts() > 0 ? i.approvedParts() : i.parts.size();
  }

  /** With review: the head an approval lets land (what PublishBranch reads instead of the branch), or null. */
  public String approvedHead(String id) {
    Item i = get(id);
    if (i == null || !repo.review()) {
      return null;
    }
    if (i.state == ItemState.LANDING && i.landingParts > 0 && i.landingParts <= i.parts.size()) {
      ItemPart last = i.parts.get(i.landingParts - 1);
      return last.approved() ? last.head() : null; // what this landing read, whatever was approved since
    }
    return i.approvedHead();
  }

  private void trimClosed() {
    int closed = 0;
    for (Item i : items) {
      if (!i.state.open()) {
        closed++;
      }
    }
    for (int k = 0; k < items.size() && closed > MAX_CLOSED; ) {
      if (!items.get(k).state.open()) {
        holdUntil.remove(items.get(k).id);
        items.remove(k);
        closed--;
      } else {
        k++;
      }
    }
  }

  // ---- claims ----

  /**
   * Who holds what a claim wants: another ant's claim, the globs of another ant's submitted work
   * that has not landed, the files of another ant's open item, or an ant that waits for those paths
   * since before this one (waiters are served in order, so none is overtaken for ever); null when free.
   */
  public PathReply conflict(PathClaim c) {
    List<String> wanted = c.globs();
    if (wanted.isEmpty()) {
      return null;
    }
    for (Map.Entry<String, PathClaim> e : claims.entrySet()) {
      if (e.getKey().equals(c.ant())) {
        continue;
      }
      List<String> o = PathGlobs.overlapping(wanted, e.getValue().globs());
      if (!o.isEmpty()) {
        return new PathReply(false, e.getKey(), bounded(o));
      }
    }
    for (Map.Entry<String, List<String>> e : held.entrySet()) {
      if (e.getKey().equals(c.ant())) {
        continue;
      }
      List<String> o = PathGlobs.overlapping(wanted, e.getValue());
      if (!o.isEmpty()) {
        return new PathReply(false, e.getKey(), bounded(o));
      }
    }
    for (Item i : items) {
      if (!i.ant.equals(c.ant()) && i.state.open()) {
        List<String> o = new ArrayList<>();
        for (String p : i.paths) {
          if (PathGlobs.matchesAny(wanted, p)) {
            o.add(p);
          }
        }
        if (i.paths.isEmpty() && wanted.contains(EVERYTHING) && Boolean.TRUE.equals(c.undeclared())) {
          o.add(i.id); // an undeclared ant's ** waits for any unlanded work, even one whose files are not known yet
        }
        if (!o.isEmpty()) {
          return new PathReply(false, i.ant, bounded(o));
        }
      }
    }
    // Work submitted while its ant's item was landing waits aside for the landing to end: unlanded all the same.
    for (Map.Entry<String, Submission> e : later.entrySet()) {
      if (e.getKey().equals(c.ant())) {
        continue;
      }
      List<String> o = laterOverlap(e.getValue(), wanted, Boolean.TRUE.equals(c.undeclared()));
      if (!o.isEmpty()) {
        return new PathReply(false, e.getKey(), bounded(o));
      }
    }
    // What the ant holds already (its claim, its submitted work) is not taken from anyone: only its
    // new globs queue behind those who wait longer. A claim made after the ant's earlier claim's work
    // was submitted is for new work (its next session): all of it queues, else a busy ant that claims
    // again before each landing would hold its paths for ever. (Claims of ants before this rule say
    // nothing of undeclared: they are judged as they were.)
    boolean nextWork = c.undeclared() != null && submittedSinceClaim(c.ant());
    List<String> fresh = new ArrayList<>(wanted);
    PathClaim own = claims.get(c.ant());
    if (own != null && !nextWork) {
      fresh.removeAll(own.globs());
    }
    if (!nextWork) {
      fresh.removeAll(held.getOrDefault(c.ant(), List.of()));
    }
    // Only the waiters before it in the line count (an ant not waiting yet comes after them all).
    for (String w : fresh.isEmpty() ? List.<String>of() : waitersInOrder()) {
      if (w.equals(c.ant())) {
        break; // the rest began to wait after it
      }
      PathClaim wc = waiting.get(w);
      if (!nextWork && holdsAgainst(c.ant(), wc)) {
        continue; // it waits for this ant's paths anyway: it cannot go first
      }
      if (Boolean.TRUE.equals(wc.undeclared()) && !Boolean.TRUE.equals(c.undeclared()) && stuckFor(w)) {
        continue; // an undeclared ant's ** waits for stuck work: declared ants do not stop behind it
      }
      List<String> o = PathGlobs.overlapping(fresh, waiting.get(w).globs());
      if (!o.isEmpty()) {
        return new PathReply(false, w, bounded(o));
      }
    }
    return null;
  }

  /**
   * Whether what {@code ant} holds (its claim, its submitted work, its open item's files) blocks
   * {@code w}: then {@code w} cannot go first, and making the ant queue behind it would wait for ever
   * (an ant whose held work needs a rework session, say).
   */
  private boolean holdsAgainst(String ant, PathClaim w) {
    PathClaim own = claims.get(ant);
    if (own != null && !PathGlobs.overlapping(w.globs(), own.globs()).isEmpty()) {
      return true;
    }
    if (!PathGlobs.overlapping(w.globs(), held.getOrDefault(ant, List.of())).isEmpty()) {
      return true;
    }
    Submission aside = later.get(ant);
    if (aside != null && !laterOverlap(aside, w.globs(), Boolean.TRUE.equals(w.undeclared())).isEmpty()) {
      return true;
    }
    for (Item i : items) {
      if (i.ant.equals(ant) && i.state.open()) {
        if (i.paths.isEmpty() && w.globs().contains(EVERYTHING) && Boolean.TRUE.equals(w.undeclared())) {
          return true;
        }
        for (String p : i.paths) {
          if (PathGlobs.matchesAny(w.globs(), p)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /** The files of a submission waiting aside that {@code wanted} matches (an undeclared ** matches any). */
  private static List<String> laterOverlap(Submission s, List<String> wanted, boolean everything) {
    List<String> o = new ArrayList<>();
    if (s.changed() == null) {
      return o;
    }
    for (String f : s.changed()) {
      String n = f == null || f.length() > 1000 ? null : PathGlobs.normalize(f);
      if (n != null && !n.isEmpty() && !o.contains(n) && (PathGlobs.matchesAny(wanted, n)
          || everything && wanted.contains(EVERYTHING))) {
        o.add(n);
      }
    }
    return o;
  }

  /** Whether the ant's submitted, unlanded work holds its claim's paths (it submitted since it claimed). */
  private boolean submittedSinceClaim(String ant) {
    Long at = heldAt.get(ant);
    return at != null && (open(ant) != null || later.containsKey(ant))
        && claimedAt.getOrDefault(ant, Long.MIN_VALUE) <= at;
  }

  /**
   * Whether another ant's open item waits for someone else (in rework, for a human, for a review):
   * then a {@code **} waiter may wait long, and declared claims do not queue behind it.
   */
  private boolean stuckFor(String waiter) {
    for (Item i : items) {
      if (!i.ant.equals(waiter) && (i.state == ItemState.REWORK || i.state == ItemState.NEEDS_HUMAN
          || i.state == ItemState.AWAITING_REVIEW)) {
        return true;
      }
    }
    return false;
  }

  /** The waiting ants, the first to wait first (by name among those of an older run, which kept no order). */
  private List<String> waitersInOrder() {
    List<String> out = new ArrayList<>(waiting.keySet());
    out.sort(Comparator.comparing((String a) -> waitingSince.getOrDefault(a, 0L)).thenComparing(a -> a));
    return out;
  }

  private static List<String> bounded(List<String> l) {
    return l.size() > MAX_OVERLAP ? List.copyOf(l.subList(0, MAX_OVERLAP)) : l;
  }

  private static List<String> normalized(List<String> globs) {
    List<String> out = new ArrayList<>();
    for (String g : globs) {
      String n = PathGlobs.normalize(g);
      if (n != null && !out.contains(n)) {
        out.add(n);
      }
    }
    return out;
  }

  /** Grants the claim, or refuses it naming the holder (and the ant waits). Validate first. */
  public PathReply claim(PathClaim c) {
    List<String> globs = normalized(c.globs());
    PathClaim norm = new PathClaim(c.ant(), globs, c.taskId(), c.antWorkflowId(), c.undeclared());
    if (Boolean.TRUE.equals(c.undeclared())) {
      markUndeclared(c.ant());
    } else if (!globs.isEmpty()) {
      undeclared.remove(c.ant()); // it declares paths now (its workspace's or its task's)
    }
    PathReply conflict = conflict(norm);
    seq++;
    if (conflict != null) {
      waiting.put(c.ant(), norm);
      waitingSince.putIfAbsent(c.ant(), seq);
      told.remove(c.ant());
      waitingFor.put(c.ant(), conflict.holder() + ": " + String.join(", ", conflict.overlap()));
      claims.remove(c.ant()); // its work so far stays held (held), its next work waits
      claimedAt.remove(c.ant());
      return conflict;
    }
    waiting.remove(c.ant());
    waitingSince.remove(c.ant());
    waitingFor.remove(c.ant());
    told.remove(c.ant());
    if (globs.isEmpty()) {
      claims.remove(c.ant());
      claimedAt.remove(c.ant());
    } else {
      claims.put(c.ant(), norm);
      claimedAt.put(c.ant(), seq);
    }
    return PathReply.grant();
  }

  /** A submission: the ant's claim now covers submitted work too, held until that work lands or is dropped. */
  private void holdClaim(String ant) {
    PathClaim c = claims.get(ant);
    if (c == null || c.globs().isEmpty()) {
      return;
    }
    seq++;
    List<String> h = new ArrayList<>(held.getOrDefault(ant, List.of()));
    for (String g : c.globs()) {
      if (!h.contains(g) && h.size() < PathGlobs.MAX_GLOBS) {
        h.add(g);
      }
    }
    held.put(ant, List.copyOf(h));
    heldAt.put(ant, seq);
  }

  /**
   * The ant's item landed or was closed: its submitted work no longer holds paths. Its claim goes
   * too when it was made for that work; a claim made since (the ant's next session) stays.
   */
  private void workDone(String ant) {
    if (later.containsKey(ant)) {
      return; // newer work follows in the ant's next item: still held
    }
    long at = heldAt.getOrDefault(ant, Long.MAX_VALUE);
    held.remove(ant);
    heldAt.remove(ant);
    if (claimedAt.getOrDefault(ant, Long.MIN_VALUE) <= at) {
      claims.remove(ant);
      claimedAt.remove(ant);
    }
  }

  /**
   * The ant gives its paths back: it stopped, or a human dropped its work (its claim and its
   * waiting end; what it submitted and has not landed stays held until it lands or is closed).
   * Returns the waiting claims that would be granted now (each is told PATHS_FREE once and claims again).
   */
  public List<PathClaim> release(String ant) {
    claims.remove(ant);
    claimedAt.remove(ant);
    waiting.remove(ant);
    waitingSince.remove(ant);
    waitingFor.remove(ant);
    told.remove(ant);
    if (open(ant) == null && !later.containsKey(ant)) {
      held.remove(ant);
      heldAt.remove(ant);
    }
    return freed();
  }

  /**
   * The waiting claims nothing holds any more, the first to wait first, each returned once (the
   * workflow tells it PATHS_FREE). They keep their place until they claim again, so an ant that
   * never waited cannot take their paths meanwhile.
   */
  public List<PathClaim> freed() {
    List<PathClaim> out = new ArrayList<>();
    for (String a : waitersInOrder()) {
      PathClaim w = waiting.get(a);
      if (!told.contains(a) && conflict(w) == null) {
        out.add(w);
        told.add(a);
      }
    }
    return out;
  }

  /** What the ant's submitted, unlanded work holds (for the card and tests). */
  public List<String> held(String ant) {
    return held.getOrDefault(ant, List.of());
  }

  public boolean holds(String ant) {
    return claims.containsKey(ant);
  }

  // ---- the card ----

  public MergeCard card(String targetHead, long now) {
    List<MergeItem> order = new ArrayList<>();
    for (Item i : items) {
      if (i.state == ItemState.LANDING) {
        order.add(rec(i, CARD_PATHS));
      }
    }
    queued(now, false).forEach(i -> order.add(rec(i, CARD_PATHS)));
    for (ItemState s : List.of(ItemState.AWAITING_REVIEW, ItemState.REWORK, ItemState.NEEDS_HUMAN)) {
      for (Item i : items) {
        if (i.state == s) {
          order.add(rec(i, CARD_PATHS));
        }
      }
    }
    List<Landed> ls = new ArrayList<>();
    for (Landed l : landed) {
      ls.add(l.paths().size() <= CARD_PATHS ? l : l.withPaths(l.paths().subList(0, CARD_PATHS)));
    }
    TreeMap<String, List<String>> cl = new TreeMap<>();
    claims.forEach((k, v) -> cl.put(k, v.globs()));
    held.forEach((k, v) -> { // what its submitted, unlanded work holds: a holder even with no claim of its own
      List<String> all = new ArrayList<>(cl.getOrDefault(k, List.of()));
      for (String g : v) {
        if (!all.contains(g)) {
          all.add(g);
        }
      }
      cl.put(k, List.copyOf(all));
    });
    TreeMap<String, String> wf = new TreeMap<>();
    waiting.forEach((k, v) -> wf.put(k, MergeText.line(waitingFor.getOrDefault(k, "paths held"), MergeText.MAX_LINE)));
    return new MergeCard(repo.colony(), repo.name(), repo.target(), repo.land(), repo.review(), targetHead, order, ls,
        cl, wf, hotPaths(), landedCount, now, List.copyOf(undeclared));
  }

  /** Directories two or more ants changed, the most shared first, at most {@value MergeCard#MAX_HOT_PATHS}. */
  public TreeMap<String, List<String>> hotPaths() {
    List<Map.Entry<String, List<String>>> shared = new ArrayList<>();
    for (Map.Entry<String, List<String>> e : dirs.entrySet()) {
      if (e.getValue().size() >= 2) {
        shared.add(e);
      }
    }
    shared.sort(Comparator.comparingInt((Map.Entry<String, List<String>> e) -> -e.getValue().size())
        .thenComparing(Map.Entry::getKey));
    TreeMap<String, List<String>> out = new TreeMap<>();
    for (int k = 0; k < shared.size() && k < MergeCard.MAX_HOT_PATHS; k++) {
      out.put(shared.get(k).getKey(), List.copyOf(shared.get(k).getValue()));
    }
    return out;
  }

  public static String words(ItemState s) {
    return switch (s) {
      case QUEUED -> "queued";
      case AWAITING_REVIEW -> "awaiting review";
      case LANDING -> "landing";
      case REWORK -> "in rework";
      case NEEDS_HUMAN -> "waiting for a human";
      case LANDED -> "landed";
      case CLOSED -> "closed";
    };
  }

  /** Whether any item is open (the card shows work). */
  public boolean anyOpen() {
    return openCount() > 0;
  }

  static boolean same(String a, String b) {
    return Objects.equals(a, b);
  }
}
