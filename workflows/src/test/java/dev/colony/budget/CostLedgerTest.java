package dev.colony.budget;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colony.ant.AntMemory;
import dev.colony.autonomy.PendingConfirmation;
import dev.colony.visibility.AntCard;
import dev.colony.visibility.AntCard.DayCost;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The per-day cost ledger, and the old JSON its carriers must still read. */
@Timeout(30)
class CostLedgerTest {
  private static final ObjectMapper JSON = JacksonJsonPayloadConverter.newDefaultObjectMapper();

  private static long at(String day, int hour) {
    return LocalDate.parse(day).atTime(hour, 0).toInstant(ZoneOffset.UTC).toEpochMilli();
  }

  @Test
  void daysOfTheBudgetZoneSumCostAndSessions() {
    CostLedger l = new CostLedger(null);
    l.addSession(at("2026-11-24", 23), "UTC");
    l.addCost(0.5, at("2026-11-24", 23), "UTC");
    l.addCost(0.25, at("2026-11-25", 1), "UTC");
    l.addCost(Double.NaN, at("2026-11-25", 1), "UTC");
    l.addCost(-3, at("2026-11-25", 1), "UTC");
    // 23:00 UTC on the 24th is the 25th in Tokyo.
    l.addSession(at("2026-11-24", 23), "Asia/Tokyo");
    assertEquals(List.of(new DayCost("2026-11-24", 0.5, 1), new DayCost("2026-11-25", 0.25, 1)), l.days());
    assertEquals("2026-11-25", l.lastDay());
    assertEquals(0.75, l.monthUsd("2026-11-25"), 1e-9);
    assertEquals(new DayCost("2026-11-01", 0, 0), l.on("2026-11-01"));
  }

  @Test
  void onlyTheLastDaysAreKept() {
    CostLedger l = new CostLedger(null);
    LocalDate start = LocalDate.parse("2026-01-01");
    for (int i = 0; i < 100; i++) {
      l.addCost(1, at(start.plusDays(i).toString(), 12), "UTC");
    }
    assertEquals(AntCard.LEDGER_DAYS, l.days().size());
    assertEquals(start.plusDays(99).toString(), l.lastDay());
    assertEquals(start.plusDays(100 - AntCard.LEDGER_DAYS).toString(), l.days().get(0).day());
    // Carried over: the same days, garbage dropped.
    CostLedger carried = new CostLedger(List.of(new DayCost("not a day", 9, 9), new DayCost("2026-02-01", 2, 1)));
    assertEquals(List.of(new DayCost("2026-02-01", 2, 1)), carried.days());
  }

  @Test
  void anOldMemoryAndAnOldConfirmationStillRead() throws Exception {
    AntMemory m = JSON.readValue("{\"sessions\":4,\"spend\":{\"day\":\"2026-11-25\",\"dayUsd\":1.0}}", AntMemory.class);
    assertEquals(List.of(), m.ledger());
    var written = JSON.valueToTree(m); // the card's part is the ant's own: read its facts as written
    assertEquals(0, written.get("recent").size());
    assertTrue(written.get("stateSinceMillis").isNull());
    assertEquals(0, written.get("cardRevision").asLong());
    PendingConfirmation c = JSON.readValue("{\"id\":1,\"session\":2,\"tool\":\"Bash\",\"summary\":\"rm\","
        + "\"reason\":\"r\",\"deadline\":\"2026-11-25T10:00:00Z\"}", PendingConfirmation.class);
    assertNull(c.requestedAtMillis());
    assertEquals(new PendingConfirmation(1, 2, "Bash", "rm", "r", "2026-11-25T10:00:00Z"), c);
    // A card of the draft's layout (no costDay) reads too.
    AntCard card = JSON.readValue("{\"version\":1,\"revision\":3,\"state\":\"waiting\"}", AntCard.class);
    assertNull(card.costDay());
    assertEquals(List.of(), card.ledger());
  }
}
