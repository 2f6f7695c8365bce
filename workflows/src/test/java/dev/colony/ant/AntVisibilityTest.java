package dev.colony.ant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.visibility.AntSearchAttributes;
import io.temporal.common.SearchAttributeUpdate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class AntVisibilityTest {
  private static AntVisibility running() {
    return new AntVisibility("c", "a", Lifecycle.RUNNING, false, null, 3, 0, 1, null, 0, "success", "continuous", "h1",
        List.of("take:ant:a", "take:pool:docs"));
  }

  private static Map<String, Optional<?>> asMap(List<SearchAttributeUpdate<?>> updates) {
    return updates.stream().collect(Collectors.toMap(u -> u.getKey().getName(), u -> u.getValue()));
  }

  @Test
  void firstPublishWritesEveryAttributeAndUnsetsEmptyOnes() {
    Map<String, Optional<?>> m = asMap(running().changesSince(null));
    // Every attribute but AntUpdatedAt, which the publisher writes with the card.
    int attributes = AntSearchAttributes.ALL.size() - 1;
    assertEquals(attributes, m.size());
    assertFalse(m.containsKey("AntUpdatedAt"));
    assertEquals(Optional.of("running"), m.get("AntState"));
    assertEquals(Optional.of(3L), m.get("AntSessions"));
    assertEquals(Optional.empty(), m.get("AntNextWake"));
    assertEquals(Optional.empty(), m.get("AntPauseReason"));
    assertEquals(Optional.of("continuous"), m.get("AntWakesOn"));
    assertEquals(Optional.of("h1"), m.get("AntHost"));
    assertEquals(Optional.of(List.of("take:ant:a", "take:pool:docs")), m.get("AntTakes"));
    // Runs from before the wakes-on, host-affinity and tasks versions publish exactly what they always did.
    AntVisibility old = new AntVisibility("c", "a", Lifecycle.RUNNING, false, null, 3, 0, 1, null, 0, "success");
    assertEquals(attributes - 3, old.changesSince(null).size());
    AntVisibility noHost = new AntVisibility("c", "a", Lifecycle.RUNNING, false, null, 3, 0, 1, null, 0, "success",
        "continuous");
    assertEquals(attributes - 2, noHost.changesSince(null).size());
    AntVisibility noTakes = new AntVisibility("c", "a", Lifecycle.RUNNING, false, null, 3, 0, 1, null, 0, "success",
        "continuous", "h1");
    assertEquals(attributes - 1, noTakes.changesSince(null).size());
  }

  @Test
  void laterPublishesWriteOnlyWhatChanged() {
    AntVisibility before = running();
    AntVisibility after = new AntVisibility("c", "a", Lifecycle.PAUSED, true, "auth", 4, 0, 1, null, 0, "auth", "continuous",
        "h1", List.of("take:ant:a", "take:pool:docs"));
    Map<String, Optional<?>> m = asMap(after.changesSince(before));
    assertEquals(Map.of("AntState", Optional.of("paused"), "AntPaused", Optional.of(true),
        "AntPauseReason", Optional.of("auth"), "AntSessions", Optional.of(4L),
        "AntNeedsHuman", Optional.of(true), "AntLastOutcome", Optional.of("auth")), m);
    assertTrue(before.changesSince(before).isEmpty());
  }

  @Test
  void needsHumanForBlockingPausesAndWaitingConfirmationsOnly() {
    assertFalse(new AntVisibility("c", "a", Lifecycle.PAUSED, true, "operator", 0, 0, 0, null, 0, null).needsHuman());
    assertTrue(new AntVisibility("c", "a", Lifecycle.PAUSED, true, "budget", 0, 0, 0, null, 0, null).needsHuman());
    assertTrue(new AntVisibility("c", "a", Lifecycle.RUNNING, false, null, 0, 0, 0, null, 2, null).needsHuman());
  }

  @Test
  void statusLineReadsLikeTheChat() {
    AntVisibility v = new AntVisibility("c", "a", Lifecycle.COOLING_DOWN, false, null, 5, 2, 0, 0L, 0, "transient");
    assertEquals("**a** cooling_down · sessions 5 · errors 2 · queue 0 · next wake 1970-01-01T00:00:00Z · last transient",
        v.statusLine());
  }
}
