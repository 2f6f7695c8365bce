package dev.colony.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.engine.SessionMetrics;
import dev.colony.spec.SandboxSpec;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code colony_sandbox_refusals_total{kind="path"}}: a session whose {@code sandbox.read} or
 * {@code write} names the colony's own files is refused its walls, and each refusal is counted for
 * its ant, the label holding the ant's config name only (never the path).
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class SandboxRefusalsMetricTest {
  @TempDir
  Path tmp;

  @Test
  void aGrantOfTheColonysOwnFilesIsRefusedAndCounted() throws Exception {
    Bubblewrap.Probe p = Bubblewrap.probe();
    assertTrue(p.works(), "bubblewrap: " + p.problem());
    Path colony = tmp.resolve("colony");
    Path workspace = Files.createDirectories(colony.resolve(".colony/workspaces/a"));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    SessionMetrics metrics = new SessionMetrics(registry);
    SandboxSpec greedy = new SandboxSpec(false, true, List.of(), List.of(), 0, 0, List.of("."), List.of());
    SandboxSpec secrets = new SandboxSpec(false, true, List.of(), List.of(), 0, 0, List.of(), List.of(".env"));
    SandboxSpec fine = new SandboxSpec(false, true, List.of(), List.of(), 0, 0, List.of("docs"), List.of());
    Files.createDirectories(colony.resolve("docs"));
    for (SandboxSpec s : List.of(greedy, secrets, fine)) {
      try (SessionWalls walls = SessionWalls.of(CommandAnts.ant(colony, "a", List.of("true")).sandbox(s).build(),
          workspace, Map.of(), Map.of("COLONY_ANT", "a"), List.of(), "refusals-" + System.nanoTime(), null, metrics)) {
        if (s == fine) {
          assertNull(walls.refusal(), "a path of the colony's that is not its own state is granted");
        } else {
          assertTrue(walls.refusal() != null && walls.refusal().startsWith("sandbox: sandbox."), walls.refusal());
        }
      }
    }
    var counters = registry.find(SessionMetrics.SANDBOX_REFUSALS).counters();
    assertEquals(1, counters.size(), "one series: " + counters);
    var c = counters.iterator().next();
    assertEquals(2.0, c.count(), "the two refused grants, not the granted one");
    assertEquals("c", c.getId().getTag("colony"));
    assertEquals("a", c.getId().getTag("ant"));
    assertEquals("path", c.getId().getTag("kind"));
    assertEquals(3, c.getId().getTags().size(), "no label beyond colony, ant and kind (never the path)");
  }
}
