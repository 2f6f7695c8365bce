package dev.colony.determinism;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.ant.AntMemory;
import dev.colony.ant.AntStats;
import dev.colony.spec.CommandSpec;
import dev.colony.supervision.ColonyRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Workflow code replays: whatever it iterates must come out in the same order in every JVM.
 * {@code Map.copyOf}, {@code Set.of} and hash-based collections iterate in an order that changes
 * from one JVM to the next (a per-JVM random salt), so one future loop over them in workflow code
 * could break the replay of every running ant. Records and state use sorted copies instead.
 */
@Timeout(30)
class ReplayedCollectionsTest {
  /** Forty keys, given in an order no sorted or salted-hash iteration keeps. */
  private static Map<String, Integer> scrambled() {
    Map<String, Integer> m = new LinkedHashMap<>();
    IntStream.range(0, 40).map(i -> (i * 17) % 40).forEach(i -> m.put(String.format("k%02d", i), i));
    return m;
  }

  private static List<String> sortedKeys() {
    return IntStream.range(0, 40).mapToObj(i -> String.format("k%02d", i)).toList();
  }

  @Test
  void recordsThatCrossTemporalIterateTheirMapsInKeyOrder() {
    Map<String, Integer> m = scrambled();
    var json = new com.fasterxml.jackson.databind.ObjectMapper();
    AntMemory memory = json.convertValue(Map.of("sessionsByOutcome", m), AntMemory.class);
    List<String> written = new ArrayList<>();
    json.valueToTree(memory).get("sessionsByOutcome").fieldNames().forEachRemaining(written::add);
    assertEquals(sortedKeys(), written, "AntMemory.sessionsByOutcome");
    AntStats stats = new AntStats("a", 0, 0, 0, m, 0, 0, false, 0, 0, 0, 0, null, null, 0);
    assertEquals(sortedKeys(), new ArrayList<>(stats.sessionsByOutcome().keySet()), "AntStats.sessionsByOutcome");

    Map<String, String> env = new LinkedHashMap<>();
    m.keySet().forEach(k -> env.put(k, "v"));
    assertEquals(sortedKeys(), new ArrayList<>(new CommandSpec(List.of("x"), env, null).env().keySet()),
        "CommandSpec.env");

    Map<String, List<Long>> restarts = new LinkedHashMap<>();
    m.keySet().forEach(k -> restarts.put(k, List.of(1L)));
    assertEquals(sortedKeys(), new ArrayList<>(new ColonyRun("c", List.of(), null, List.of(), restarts, List.of(), 0,
        null).restarts().keySet()), "ColonyRun.restarts");
  }

  /** No hash-ordered or salted collection in workflow code, where a loop over it would not replay. */
  @Test
  void workflowCodeBuildsNoCollectionWhoseOrderChangesFromOneJvmToTheNext() throws IOException {
    java.util.regex.Pattern unordered = java.util.regex.Pattern.compile(
        "\\b(Map\\.copyOf|Set\\.copyOf|Map\\.ofEntries|new HashMap|new HashSet|Collectors\\.toMap|Collectors\\.toSet"
            + "|Collectors\\.groupingBy|Collectors\\.toUnmodifiableMap|Collectors\\.toUnmodifiableSet)\\b"
            + "|\\b(Map|Set)\\.of\\(\\s*[^)\\s]");
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
        List<String> lines = Files.readAllLines(f);
        for (int i = 0; i < lines.size(); i++) {
          String line = lines.get(i).strip();
          Matcher m = unordered.matcher(line);
          if (!line.startsWith("*") && !line.startsWith("//") && m.find()) {
            found.add(f + ":" + (i + 1) + ": " + lines.get(i).strip());
          }
        }
      }
    }
    assertTrue(found.isEmpty(), "use SortedCopies (or a TreeMap, TreeSet, LinkedHashMap, LinkedHashSet, EnumSet):\n"
        + String.join("\n", found));
  }
}
