package dev.colony.client;

import dev.colony.autonomy.PendingConfirmation;
import dev.colony.client.ColonySource.Row;
import dev.colony.visibility.AntCard;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The one reading of what waits for a human, for every surface (the console's inbox, the MCP
 * server's {@code colony_inbox}): each confirmation an ant waits on, else the ant itself with why
 * it needs a human (its card's reason, its pause reason, parked, escalated), since when, and the
 * actions that answer it. Oldest first; an item whose time is unknown last.
 */
public final class Inbox {
  private Inbox() {}

  /**
   * One thing waiting for a human.
   *
   * @param kind {@code confirmation}, {@code billing}, {@code auth}, {@code budget}, {@code parked}, {@code escalated}, ...
   * @param sinceMillis since when it waits; null when unknown
   * @param detail what the human needs to answer it (the request, the error), as the ant wrote it
   * @param confirmation the request, for a confirmation; null otherwise
   * @param actions the verbs that answer it ({@code approve}/{@code deny}, {@code resume}/{@code stop}, ...)
   */
  public record Item(String ant, String kind, Long sinceMillis, String detail, PendingConfirmation confirmation,
      List<String> actions) {}

  /** The items of {@code rows} (the ants that need a human: {@code ColonySource.Filter.NEED_YOU}). */
  public static List<Item> of(List<Row> rows) {
    List<Item> items = new ArrayList<>();
    for (Row r : rows) {
      AntCard c = r.card();
      if (c != null && !c.confirmations().isEmpty()) {
        for (var p : c.confirmations()) {
          items.add(new Item(r.name(), "confirmation", since(c, r), p.tool() + ": " + p.summary(), p,
              List.of("approve", "deny")));
        }
        continue;
      }
      String kind = c != null && c.needsHuman() != null ? c.needsHuman()
          : r.pauseReason() != null && !r.pauseReason().equals("operator") ? r.pauseReason()
          : "parked".equals(r.state()) ? "parked" : "escalated";
      String detail = c != null && c.needsHumanDetail() != null ? c.needsHumanDetail()
          : c != null && c.lastError() != null ? c.lastError() : r.lastOutcome();
      List<String> actions = switch (kind) {
        case "confirmation" -> List.of("approve", "deny");
        case "parked" -> List.of("resume", "stop");
        default -> List.of("resume", "abort");
      };
      items.add(new Item(r.name(), kind, since(c, r), detail, null, actions));
    }
    items.sort(Comparator.comparing(Item::sinceMillis, Comparator.nullsLast(Comparator.naturalOrder())));
    return items;
  }

  /** Since when the item waits; null when unknown (an ant whose run began before the card): sorted last. */
  private static Long since(AntCard c, Row r) {
    if (c != null && c.needsHumanSinceMillis() != null) {
      return c.needsHumanSinceMillis();
    }
    if (c != null && c.stateSinceMillis() > 0) {
      return c.stateSinceMillis();
    }
    return r.updatedMillis() > 0 ? r.updatedMillis() : null;
  }
}
