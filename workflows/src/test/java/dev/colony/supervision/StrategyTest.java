package dev.colony.supervision;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class StrategyTest {
  private static final List<String> PIPELINE = List.of("scout", "builder", "reviewer");

  @Test
  void eachStrategyRestartsExactlyTheRightAnts() {
    assertEquals(List.of("builder"), Strategy.ONE_FOR_ONE.toRestart(PIPELINE, "builder"));
    assertEquals(PIPELINE, Strategy.ONE_FOR_ALL.toRestart(PIPELINE, "builder"));
    assertEquals(List.of("builder", "reviewer"), Strategy.REST_FOR_ONE.toRestart(PIPELINE, "builder"));
    assertEquals(PIPELINE, Strategy.REST_FOR_ONE.toRestart(PIPELINE, "scout"));
    assertEquals(List.of("reviewer"), Strategy.REST_FOR_ONE.toRestart(PIPELINE, "reviewer"));
    assertEquals(List.of("stranger"), Strategy.ONE_FOR_ALL.toRestart(PIPELINE, "stranger"));
    assertEquals(Strategy.REST_FOR_ONE, Strategy.parse("rest_for_one"));
    assertEquals(null, Strategy.parse("all_for_one"));
  }

  @Test
  void theBreakerTripsAtTheLimitWithinTheWindowAndNotBelowIt() {
    GroupSpec g = new GroupSpec("g", Strategy.ONE_FOR_ONE, PIPELINE, 3, 60);
    RestartBreaker b = new RestartBreaker(Map.of());
    assertTrue(b.allow(g, 0));
    assertTrue(b.allow(g, 10_000));
    assertTrue(b.allow(g, 20_000), "the third restart within 60 s is allowed");
    assertFalse(b.allow(g, 30_000), "the fourth trips the breaker");
    assertEquals(3, b.recent(g, 30_000));
    assertTrue(b.allow(g, 60_001), "the first restart left the window");
    RestartBreaker carried = new RestartBreaker(b.state());
    assertFalse(carried.allow(g, 60_002), "carried over continue-as-new");
    carried.reset("g");
    assertTrue(carried.allow(g, 60_003));
  }
}
