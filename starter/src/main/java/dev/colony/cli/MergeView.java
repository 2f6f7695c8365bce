package dev.colony.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.colony.merge.Landed;
import dev.colony.merge.MergeCard;
import dev.colony.merge.MergeItem;
import dev.colony.merge.MergeRepo;
import dev.colony.merge.SubmitReply;
import dev.colony.text.Printable;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code colony merge} prints: a queue's card as text (its items in landing order, path
 * claims and waits, last landings, hot paths), the JSON of cards, and one line per queue for
 * {@code colony start} and the dev console. Text from the card (reasons, paths) passes
 * {@link Printable}.
 */
final class MergeView {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  /** Landings shown in the text (the JSON has them all). */
  static final int LANDED_SHOWN = 5;

  private MergeView() {}

  static String json(Object cardOrCards) {
    try {
      return JSON.writeValueAsString(cardOrCards) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String shortSha(String sha) {
    return sha == null || sha.isEmpty() ? "-" : sha.length() > 7 ? sha.substring(0, 7) : sha;
  }

  private static String state(Enum<?> e) {
    return e == null ? "-" : e.name().toLowerCase(Locale.ROOT).replace('_', ' ');
  }

  private static String seconds(long millis) {
    return millis < 10_000 ? String.format(Locale.ROOT, "%.1f s", millis / 1000.0) : (millis / 1000) + " s";
  }

  /** One queue in full. */
  static String card(MergeCard c, Instant now) {
    StringBuilder sb = new StringBuilder();
    sb.append("merge queue ").append(c.repo()).append(" (colony ").append(c.colony()).append("): ")
        .append(c.target() == null ? "?" : c.target()).append(" at ").append(shortSha(c.targetHead()))
        .append(", land ").append(c.land() == null ? "rebase" : c.land().configName())
        .append(c.review() ? ", review on" : "").append(", ").append(c.landedCount()).append(" landed\n");
    if (c.items().isEmpty()) {
      sb.append("  no open items\n");
    } else {
      sb.append(String.format(Locale.ROOT, "  %-3s %-16s %-14s %-16s %-28s %-5s %-10s %s%n", "#", "ITEM", "ANT", "STATE",
          "STEP / REASON", "TRIES", "TASK", "AGE"));
      int n = 0;
      for (MergeItem i : c.items()) {
        String detail = i.step() != null && !i.step().isBlank() ? i.step() : i.reason() == null ? "-" : i.reason();
        sb.append(String.format(Locale.ROOT, "  %-3d %-16s %-14s %-16s %-28s %-5d %-10s %s%n", ++n,
            Printable.line(i.id(), 16), Printable.line(i.ant(), 14), state(i.state()), Printable.line(detail, 28),
            i.tries(), i.taskId() == null ? "-" : Printable.line(String.join(",", i.taskIds()), 10),
            i.submittedAt() <= 0 ? "-" : TaskView.age(i.submittedAt(), now)));
        review(sb, i);
      }
    }
    if (!c.claims().isEmpty()) {
      sb.append("  path claims:\n");
      c.claims().forEach((ant, globs) -> sb.append("    ").append(Printable.line(ant, 60)).append(": ")
          .append(Printable.line(String.join(", ", globs), 200)).append('\n'));
    }
    if (!c.undeclared().isEmpty()) {
      sb.append("  declaring no paths (not scheduled by paths before their sessions): ")
          .append(Printable.line(String.join(", ", c.undeclared()), 400)).append('\n');
    }
    if (!c.waiting().isEmpty()) {
      sb.append("  waiting for paths:\n");
      c.waiting().forEach((ant, what) -> sb.append("    ").append(Printable.line(ant, 60)).append(" waits for ")
          .append(Printable.line(what, 200)).append('\n'));
    }
    if (!c.landed().isEmpty()) {
      sb.append("  last landings:\n");
      for (Landed l : c.landed().subList(0, Math.min(LANDED_SHOWN, c.landed().size()))) {
        sb.append("    ").append(Printable.line(l.ant(), 30)).append(": ").append(l.commits())
            .append(l.commits() == 1 ? " commit " : " commits ").append(shortSha(l.before())).append("..")
            .append(shortSha(l.to())).append(", tests ").append(seconds(l.testMillis()))
            .append(l.pullRequest() != null ? ", " + Printable.line(l.pullRequest(), 200) : "")
            .append(l.approved() ? ", approved " + (l.base() == null ? "up to " : shortSha(l.base()) + "..")
                + shortSha(l.from()) : "")
            .append(l.at() <= 0 ? "" : ", " + TaskView.age(l.at(), now) + " ago").append('\n');
      }
    }
    if (!c.hotPaths().isEmpty()) {
      sb.append("  hot paths (changed by two or more ants):\n");
      c.hotPaths().forEach((dir, ants) -> sb.append("    ").append(Printable.line(dir, 120)).append(": ")
          .append(Printable.line(String.join(", ", ants), 200)).append('\n'));
    }
    return sb.toString();
  }

  /** Under an item: its tasks when it holds several, which commits its approval covers, and which wait for one. */
  private static void review(StringBuilder sb, MergeItem i) {
    if (i.taskIds().size() > 1) {
      sb.append("      tasks: ").append(Printable.line(String.join(", ", i.taskIds()), 200)).append('\n');
    }
    if (i.approvedHead() != null) {
      String base = i.parts().isEmpty() ? null : i.parts().get(0).base();
      sb.append("      approved: ").append(base == null ? "up to " : shortSha(base) + "..")
          .append(shortSha(i.approvedHead())).append(" (nothing after it lands)\n");
    }
    List<String> waiting = new java.util.ArrayList<>();
    for (dev.colony.merge.ItemPart p : i.parts()) {
      if (!p.approved() && p.head() != null) {
        waiting.add((p.taskId() == null ? "" : Printable.line(p.taskId(), 40) + " at ") + shortSha(p.head()));
      }
    }
    if (!waiting.isEmpty()) {
      sb.append("      awaiting review: ").append(Printable.line(String.join(", ", waiting), 200)).append('\n');
    }
  }

  /** Every queue of a colony, one after the other. */
  static String cards(String colony, List<MergeCard> cards, Instant now) {
    if (cards.isEmpty()) {
      return "colony '" + colony + "' has no running merge queue (merge.repos in colony.yaml; colony start starts them)\n";
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < cards.size(); i++) {
      sb.append(i == 0 ? "" : "\n").append(card(cards.get(i), now));
    }
    return sb.toString();
  }

  /** One line per queue, for the dev console: "app: main at 1a2b3c4, 2 open (alpha landing: testing), 5 landed". */
  static String shortLine(MergeCard c) {
    StringBuilder sb = new StringBuilder();
    sb.append(c.repo()).append(": ").append(c.target() == null ? "?" : c.target()).append(" at ")
        .append(shortSha(c.targetHead())).append(", ").append(c.items().size()).append(" open");
    if (!c.items().isEmpty()) {
      MergeItem first = c.items().get(0);
      sb.append(" (").append(Printable.line(first.ant(), 30)).append(' ').append(state(first.state()))
          .append(first.step() != null && !first.step().isBlank() ? ": " + Printable.line(first.step(), 40) : "")
          .append(')');
    }
    sb.append(", ").append(c.landedCount()).append(" landed");
    if (!c.waiting().isEmpty()) {
      sb.append(", ").append(c.waiting().size()).append(" waiting for paths");
    }
    return sb.toString();
  }

  /** "merge queue app: ./repo → main, tests ./test.sh", for colony start. */
  static String started(MergeRepo r) {
    String repo = r.repo();
    if (!r.remote() && r.colonyDir() != null) {
      try {
        Path p = Path.of(repo);
        Path dir = Path.of(r.colonyDir());
        if (p.isAbsolute() && p.startsWith(dir)) {
          repo = "./" + dir.relativize(p);
        }
      } catch (RuntimeException e) {
        // shown as it is
      }
    }
    String test;
    if (r.test().isEmpty()) {
      test = "no tests";
    } else if (r.test().size() == 3 && r.test().get(0).equals("/bin/sh") && r.test().get(1).equals("-c")) {
      test = "tests " + r.test().get(2);
    } else {
      test = "tests " + String.join(" ", r.test());
    }
    return "merge queue " + r.name() + ": " + repo + " → " + r.target() + ", " + test
        + (r.land() == dev.colony.merge.LandMode.REBASE ? "" : ", land " + r.land().configName())
        + (r.review() ? ", review" : "");
  }

  /** A queue's answer to a submission or a decision. */
  static String reply(SubmitReply r) {
    String line = r.itemId() + ": " + state(r.state()) + (r.position() > 0 ? ", #" + r.position() + " in line" : "");
    return r.text() == null || r.text().isBlank() ? line : line + " (" + Printable.line(r.text(), 300) + ")";
  }

  /** An item's queue: the card whose open items hold {@code item} (an id or an ant); null for none. */
  static MergeCard holding(List<MergeCard> cards, String item) {
    for (MergeCard c : cards) {
      for (MergeItem i : c.items()) {
        if (item.equals(i.id()) || item.equals(i.ant())) {
          return c;
        }
      }
    }
    return null;
  }

  static final Map<String, Integer> PRIORITIES = Map.of("urgent", 0, "high", 1, "normal", 2, "low", 3);
}
