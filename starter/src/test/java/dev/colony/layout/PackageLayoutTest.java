package dev.colony.layout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The module layout, read from the sources: no package lives in two modules' {@code src/main/java}
 * (the workflows module keeps {@code dev.colony.<area>}, the activities' implementation is in
 * {@code dev.colony.<area>.impl}), and the fakes are not in a module a worker runs.
 */
@Timeout(30)
class PackageLayoutTest {
  /** The repository root: the starter's tests run in {@code starter/}. */
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  private static List<Path> modules() throws IOException {
    try (Stream<Path> s = Files.list(ROOT)) {
      return s.filter(d -> Files.isRegularFile(d.resolve("pom.xml")) && Files.isDirectory(d.resolve("src/main/java")))
          .sorted().toList();
    }
  }

  /** Package name to the modules whose {@code src/main/java} has a Java file in it. */
  static Map<String, Set<String>> packages() throws IOException {
    Map<String, Set<String>> where = new TreeMap<>();
    for (Path m : modules()) {
      Path src = m.resolve("src/main/java");
      try (Stream<Path> s = Files.walk(src)) {
        s.filter(f -> f.toString().endsWith(".java") && !f.getFileName().toString().equals("package-info.java"))
            .map(f -> src.relativize(f.getParent()).toString().replace(java.io.File.separatorChar, '.'))
            .forEach(p -> where.computeIfAbsent(p, k -> new TreeSet<>()).add(m.getFileName().toString()));
      }
    }
    return where;
  }

  @Test
  void noPackageIsSplitAcrossTwoModules() throws IOException {
    Map<String, Set<String>> where = packages();
    assertTrue(where.containsKey("dev.colony.ant"), "the scan found no sources under " + ROOT);
    Map<String, Set<String>> split = new TreeMap<>();
    where.forEach((p, ms) -> {
      if (ms.size() > 1) {
        split.put(p, ms);
      }
    });
    assertEquals(Map.of(), split, "packages in two modules (move one side to <package>.impl or a name of its own)");
  }

  @Test
  void theFakesAreInTheirOwnModule() throws IOException {
    assertEquals(Set.of("fakes"), packages().get("dev.colony.fakes"));
  }
}
