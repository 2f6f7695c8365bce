package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.colony.client.ColonySource;
import dev.colony.client.TemporalColonySource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A page of a colony above the 1,000 ants a list reads whole (what {@code colony_ants} and the
 * console's overview show of 10,000 ants), on the real dev server: the ants are counted once for
 * the page and its total, not twice; a part of a name still counts the ants it names.
 */
@Timeout(600)
class AntPageIT {
  private static final int ANTS = 1_001;

  @TempDir
  Path tmp;

  @Test
  void aPageOfALargeColonyCountsItsAntsOnce() throws Exception {
    try (Cluster c = new Cluster(tmp, ConsoleBench.fixture(tmp.resolve("fixture")))) {
      c.colonyName = "bench";
      c.startServer("dev");
      ConsoleBench.startShaped(c, 0, ANTS, 0);
      TemporalColonySource source = new TemporalColonySource(c.client, "bench", null);
      eventually(Duration.ofMinutes(3), () -> source.page(ColonySource.Filter.ALL, null, 10, null).total() == ANTS,
          "visibility lists every ant");

      Map<String, Long> before = source.callsByMethod();
      ColonySource.Page page = source.page(ColonySource.Filter.ALL, null, 10, null);
      assertEquals(ANTS, page.total());
      assertEquals(10, page.rows().size());
      assertEquals(Map.of("CountWorkflowExecutions", 1L, "ListWorkflowExecutions", 1L), made(before, source));

      before = source.callsByMethod();
      ColonySource.Page named = source.page(ColonySource.Filter.ALL, "ant-0000", 100, null);
      assertEquals(10, named.total(), "ant-00000 to ant-00009");
      assertEquals(10, named.rows().size());
      assertEquals(Map.of("CountWorkflowExecutions", 2L, "ListWorkflowExecutions", 1L), made(before, source),
          "the colony's count, then the name's");
    }
  }

  private static Map<String, Long> made(Map<String, Long> before, ColonySource source) {
    Map<String, Long> made = new TreeMap<>();
    source.callsByMethod().forEach((method, n) -> {
      long d = n - before.getOrDefault(method, 0L);
      if (d > 0) {
        made.put(method, d);
      }
    });
    return made;
  }
}
