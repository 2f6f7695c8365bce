package dev.colony.testing;

import java.util.OptionalLong;
import java.util.SplittableRandom;

/**
 * The seed of a randomized test, and how to replay it. Every property test takes its seed from
 * {@code -Dcolony.seed=N} when given, else picks a fresh one; either way it prints the seed on
 * stderr before it runs and names it in its failure message, so the failing case can be run again
 * exactly: {@code ./mvnw ... test -Dtest=SomePropertyTest -Dcolony.seed=N}. Shared with the other
 * modules through the workflows test-jar (jqwik properties use it through a lifecycle hook of
 * their own in the activities module).
 */
public final class Seeds {
  /** The system property that replays a seed. */
  public static final String PROPERTY = "colony.seed";

  private Seeds() {}

  /** The seed given with {@code -Dcolony.seed}, if any; a value that is not a number is refused in one line. */
  public static OptionalLong given() {
    String v = System.getProperty(PROPERTY);
    if (v == null || v.isBlank()) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Long.parseLong(v.trim()));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("-D" + PROPERTY + "=" + v + ": not a whole number (a seed a test printed)");
    }
  }

  /** The given seed, else a fresh random one; printed on stderr for {@code test} either way. */
  public static long pick(String test) {
    long seed = given().orElseGet(() -> new SplittableRandom().nextLong());
    announce(test, seed);
    return seed;
  }

  /** Prints the seed {@code test} runs with on stderr: the line to copy when it fails. */
  public static void announce(String test, long seed) {
    System.err.println(test + ": " + replay(seed));
  }

  /** How a failure message names its seed: {@code seed N (replay with -Dcolony.seed=N)}. */
  public static String replay(long seed) {
    return "seed " + seed + " (replay with -D" + PROPERTY + "=" + seed + ")";
  }
}
