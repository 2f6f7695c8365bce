package dev.colony.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The guard behind each module's {@code EveryTestClassHasATimeoutTest}: a test class (a source
 * file under the test root with a JUnit or jqwik test in it) must carry a class-level
 * {@code @Timeout}, so that a hang fails that class fast instead of the build at CI's limit.
 */
public final class TestClassTimeouts {
  private static final Pattern TEST = Pattern.compile(
      "@(org\\.junit\\.jupiter\\.api\\.)?(Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\\b"
          + "|@(net\\.jqwik\\.api\\.)?(Property|Example)\\b");
  /** A JUnit Jupiter test: jqwik's engine ignores Jupiter's @Timeout, its properties bound their own time. */
  private static final Pattern JUPITER = Pattern.compile(
      "@(org\\.junit\\.jupiter\\.api\\.)?(Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\\b");
  /** How a jqwik property bounds its time. */
  private static final Pattern BOUNDED = Pattern.compile("assertTimeoutPreemptively\\(");
  /** The top-level type: the first line that declares a class, record or interface at column 0. */
  private static final Pattern TOP_LEVEL = Pattern.compile(
      "^(public |final |abstract |sealed |non-sealed )*(class|record|interface|enum) ", Pattern.MULTILINE);
  private static final Pattern TIMEOUT = Pattern.compile("^@(org\\.junit\\.jupiter\\.api\\.)?Timeout\\b", Pattern.MULTILINE);

  private TestClassTimeouts() {}

  /**
   * The test sources under {@code root} whose top-level class has no {@code @Timeout} (a jqwik
   * class, which Jupiter's timeout does not reach, must bound its properties with
   * {@code assertTimeoutPreemptively} instead).
   */
  public static List<Path> missing(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(p -> p.toString().endsWith(".java")).sorted().filter(p -> {
        String text = read(p);
        if (!TEST.matcher(text).find()) {
          return false;
        }
        if (!JUPITER.matcher(text).find()) {
          return !BOUNDED.matcher(text).find();
        }
        var top = TOP_LEVEL.matcher(text);
        String head = top.find() ? text.substring(0, top.start()) : text;
        return !TIMEOUT.matcher(head).find();
      }).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** How many test classes there are under {@code root}: the guard must have looked at some. */
  public static long testClasses(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(p -> p.toString().endsWith(".java")).filter(p -> TEST.matcher(read(p)).find()).count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Fails unless every test class under {@code root} (there is at least one) has a class-level {@code @Timeout}. */
  public static void assertEveryClassUnderATimeout(Path root) {
    org.junit.jupiter.api.Assertions.assertTrue(testClasses(root) > 0, "no test class found under " + root.toAbsolutePath());
    org.junit.jupiter.api.Assertions.assertEquals(List.of(), missing(root),
        "test classes without a class-level @Timeout (org.junit.jupiter.api.Timeout, sized to the class)");
  }
}
