package dev.colony.client;

import dev.colony.merge.ItemState;
import dev.colony.merge.LandMode;
import dev.colony.merge.Landed;
import dev.colony.merge.MergeCard;
import dev.colony.merge.MergeDecision;
import dev.colony.merge.MergeItem;
import dev.colony.merge.SubmitReply;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Merge queues in memory: cards the test sets, decisions it was sent (refused like the queue's
 * validator would: no such item, or not in a state that takes the action). Public (in the
 * test-jar) for the starter's browser test of the Merge page.
 */
public final class FakeMergeSource implements MergeSource {
  public final Map<String, MergeCard> queues = new ConcurrentSkipListMap<>();
  public final List<String> decisions = new CopyOnWriteArrayList<>();
  public final Map<String, Long> calls = new ConcurrentHashMap<>();
  /** When set, the next decision is refused with this sentence (as a queue that moved on would). */
  public volatile String refuseNext;

  public void put(MergeCard card) {
    queues.put(card.repo(), card);
  }

  @Override
  public List<MergeCard> cards() {
    calls.merge("cards", 1L, Long::sum);
    return List.copyOf(queues.values());
  }

  @Override
  public synchronized SubmitReply decide(String repo, MergeDecision d) {
    calls.merge("decide", 1L, Long::sum);
    String refuse = refuseNext;
    if (refuse != null) {
      refuseNext = null;
      throw new Refused(refuse);
    }
    MergeCard card = queues.get(repo);
    if (card == null) {
      throw new NoSuchElementException("no merge queue '" + repo + "' runs in colony 'hello'");
    }
    MergeItem item = card.items().stream().filter(i -> i.id().equals(d.item()) || i.ant().equals(d.item())).findFirst()
        .orElseThrow(() -> new Refused("no open item '" + d.item() + "' in the queue of " + repo));
    ItemState next = switch (d.action()) {
      case "approve" -> {
        if (item.state() != ItemState.AWAITING_REVIEW) {
          throw new Refused(item.id() + " is " + item.state() + ", not awaiting review");
        }
        yield ItemState.QUEUED;
      }
      case "retry" -> {
        if (item.state() != ItemState.NEEDS_HUMAN && item.state() != ItemState.REWORK) {
          throw new Refused(item.id() + " is " + item.state() + ": only an item in rework or needing a human is retried");
        }
        yield ItemState.QUEUED;
      }
      case "cancel" -> {
        if (item.state() == ItemState.LANDING) {
          throw new Refused(item.id() + " is landing now: cancel it after this step");
        }
        yield ItemState.CLOSED;
      }
      default -> throw new Refused("unknown action " + d.action());
    };
    decisions.add(d.action() + " " + item.id() + " in " + repo + " by " + d.by()
        + (d.head() == null ? "" : " up to " + d.head()));
    List<MergeItem> items = new ArrayList<>();
    for (MergeItem i : card.items()) {
      if (i != item) {
        items.add(i);
      } else if (next != ItemState.CLOSED) {
        items.add(with(i, next, d.action().equals("retry") ? 0 : i.tries(), d.by()));
      }
    }
    put(new MergeCard(card.colony(), card.repo(), card.target(), card.land(), card.review(), card.targetHead(), items,
        card.landed(), card.claims(), card.waiting(), card.hotPaths(), card.landedCount(), System.currentTimeMillis()));
    return new SubmitReply(item.id(), next, 0, d.action() + ": " + item.id() + " is " + next.name().toLowerCase() + " now");
  }

  public static MergeItem with(MergeItem i, ItemState state, int tries, String by) {
    return new MergeItem(i.id(), i.ant(), i.host(), i.branch(), i.taskId(), i.priority(), state, null, i.submittedAt(),
        System.currentTimeMillis(), tries, state == ItemState.QUEUED ? null : i.reason(), i.head(), i.paths(), by,
        i.approved());
  }

  public static MergeItem item(String id, String ant, ItemState state, String step, int tries, String reason,
      String taskId, long ageMillis) {
    long now = System.currentTimeMillis();
    return new MergeItem(id, ant, "", "colony/" + ant, taskId, 1, state, step, now - ageMillis, now, tries, reason,
        "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39", List.of("src/api/Users.java"), null, false);
  }

  public static Landed landed(String itemId, String ant, int commits, long testMillis, long queueMillis, long agoMillis,
      int paths, String pullRequest) {
    List<String> ps = new ArrayList<>();
    for (int k = 0; k < paths; k++) {
      ps.add("src/file" + k + ".java");
    }
    return new Landed(itemId, ant, null, "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432",
        "0123456789abcdef0123456789abcdef01234567", commits, testMillis, queueMillis, System.currentTimeMillis() - agoMillis,
        ps, pullRequest);
  }

  /** A queue of repository {@code repo} on {@code main}. */
  public static MergeCard card(String repo, List<MergeItem> items, List<Landed> landed, Map<String, List<String>> claims,
      Map<String, String> waiting, Map<String, List<String>> hot) {
    return new MergeCard("hello", repo, "main", LandMode.REBASE, false, "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432", items,
        landed, claims, waiting, hot, landed.size(), System.currentTimeMillis());
  }
}
