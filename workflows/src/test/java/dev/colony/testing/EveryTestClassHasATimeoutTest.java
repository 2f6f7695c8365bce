package dev.colony.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.testing.TestClassTimeouts;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every test class of this module carries a class-level {@code @Timeout}: a hang fails fast. */
@Timeout(30)
class EveryTestClassHasATimeoutTest {
  @Test
  void everyTestClassHasAClassLevelTimeout() {
    Path root = Path.of("src/test/java");
    assertTrue(TestClassTimeouts.testClasses(root) > 0, "no test class found under " + root.toAbsolutePath());
    assertEquals(List.of(), TestClassTimeouts.missing(root),
        "test classes without a class-level @Timeout (org.junit.jupiter.api.Timeout, sized to the class)");
  }
}
