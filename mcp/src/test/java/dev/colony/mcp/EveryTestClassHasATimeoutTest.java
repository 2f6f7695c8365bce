package dev.colony.mcp;

import dev.colony.testing.TestClassTimeouts;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every test class of this module carries a class-level {@code @Timeout}: a hang fails fast. */
@Timeout(30)
class EveryTestClassHasATimeoutTest {
  @Test
  void everyTestClassHasAClassLevelTimeout() {
    TestClassTimeouts.assertEveryClassUnderATimeout(Path.of("src/test/java"));
  }
}
