package dev.colony.console;

import dev.colony.client.MergeSource;
import com.fasterxml.jackson.databind.JsonNode;
import dev.colony.merge.MergeCard;
import dev.colony.merge.MergeDecision;
import dev.colony.merge.SubmitReply;
import io.javalin.http.Context;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.regex.Pattern;

/**
 * The merge queues' part of the JSON API (docs/console.md, "Merge"): every queue's card as its
 * memo holds it, and a human's decision on an item as the queue's {@code decide} update. Every
 * input is checked here first (a 400 naming the field, nothing sent); the queue's own refusal
 * (no such item, not in a state that takes it) is a 409 with its sentence.
 */
final class MergeRoutes {
  static final List<String> ACTIONS = List.of("approve", "retry", "cancel");
  /** A repository's name in the colony ({@code MergeRepo.name}). */
  static final Pattern REPO = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}");
  /** An item id ({@code alpha-3}) or an ant's name: the same letters. */
  static final Pattern ITEM = ConsoleServer.ANT_NAME;

  private final MergeSource merges;
  private final String colony;

  MergeRoutes(MergeSource merges, String colony) {
    this.merges = merges;
    this.colony = colony;
  }

  /** Whether there are queues to read (a source of them): the live stream follows them only then. */
  boolean hasQueues() {
    return merges != null;
  }

  /** {@code GET /api/merge}: every queue's card, by repository; none when the colony has no queue. */
  Map<String, Object> queues() {
    List<MergeCard> cards = merges == null ? List.of() : merges.cards();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("colony", colony);
    m.put("queues", cards);
    m.put("now", System.currentTimeMillis());
    return m;
  }

  /** The head an approval covers, as the page saw it. */
  private static final java.util.regex.Pattern HEAD = java.util.regex.Pattern.compile("[0-9a-fA-F]{7,64}");

  /**
   * {@code POST /api/merge/{repo}/decide}: {@code {"item", "action": "approve|retry|cancel", "head"}}
   * ({@code head}, optional, for approve: the item's head the page showed; the approval covers up to it).
   */
  Map<String, Object> decide(Context ctx, byte[] raw, String operator) {
    String repo = ctx.pathParam("repo");
    if (!REPO.matcher(repo).matches()) {
      throw new IllegalArgumentException("not a repository name (letters, digits, '.', '_', '-'; 63 at most)");
    }
    JsonNode body = Views.jsonObject(raw);
    String item = ConsoleServer.textField(body, "item");
    if (item == null || item.isBlank()) {
      throw new IllegalArgumentException("which item? send {\"item\": \"alpha-3\", \"action\": \"approve|retry|cancel\"}");
    }
    item = item.strip();
    if (!ITEM.matcher(item).matches()) {
      throw new IllegalArgumentException("item is not an item id or an ant name (letters, digits, '.', '_', '-'; 63 at most)");
    }
    String action = ConsoleServer.textField(body, "action");
    action = action == null ? "" : action.strip().toLowerCase(java.util.Locale.ROOT);
    if (!ACTIONS.contains(action)) {
      throw new IllegalArgumentException("unknown action '" + clip(action) + "' (" + String.join(", ", ACTIONS) + ")");
    }
    if (merges == null) {
      throw new NoSuchElementException("colony '" + colony + "' has no merge queue: add merge.repos to colony.yaml");
    }
    String head = ConsoleServer.textField(body, "head");
    head = head == null || head.isBlank() ? null : head.strip();
    if (head != null && !HEAD.matcher(head).matches()) {
      throw new IllegalArgumentException("head is not a commit id (7 to 64 hex digits)");
    }
    String by = "@" + (operator == null || operator.isBlank() ? "console" : operator);
    SubmitReply reply = merges.decide(repo, new MergeDecision(item, action, by, "approve".equals(action) ? head : null));
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("ok", true);
    m.put("message", reply != null && reply.text() != null && !reply.text().isBlank() ? reply.text()
        : action + " sent for " + item + " in " + repo);
    m.put("reply", reply);
    return m;
  }

  private static String clip(String s) {
    String t = s.replaceAll("[^A-Za-z0-9 ._:@-]", "?");
    return t.length() > 40 ? t.substring(0, 40) + "…" : t;
  }
}
