package dev.colony.config;

import dev.colony.testing.JqwikSeeds;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Whatever an ant file holds, loading it either succeeds or fails with problems that name the
 * file, stay bounded and print no control characters: never another exception, never a hang.
 */
@AddLifecycleHook(JqwikSeeds.class)
class ColonyLoaderPropertyTest {
  private static final Map<String, String> ENV = Map.of("DISCORD_TOKEN", "discord-secret-value");
  private static final List<String> KEYS = List.of("name", "description", "instructions", "engine", "autonomy",
      "poll_interval", "session_timeout", "recovery", "schedule", "triggers", "logging", "command", "confirmation",
      "integrations", "workspace", "claude", "gemini", "state", "unknown_key", "<<", "? complex");

  @Provide
  Arbitrary<String> scalars() {
    return Arbitraries.oneOf(
        Arbitraries.strings().ofMaxLength(40),
        Arbitraries.strings().withChars("${}[]:,'\"#&*!|>-?%@` \t\n\u0000\u001b\u202e0123456789yesnoOFF").ofMaxLength(30),
        Arbitraries.of("yes", "off", "0777", "1:30", "~", "null", "999999999h", "0s", "30s", "${}", "${A", "${UNSET}",
            "${DISCORD_TOKEN}", "\"quoted\"", "[a, b]", "{k: v}", "&anchor x", "*alias", "!!binary AAAA",
            "0 0 30 2 *", "* * * * *", "command", "claude", "full"));
  }

  @Provide
  Arbitrary<String> documents() {
    Arbitrary<String> line = Combinators.combine(Arbitraries.of(KEYS), scalars(), Arbitraries.integers().between(0, 4))
        .as((k, v, indent) -> " ".repeat(indent) + k + ": " + v);
    return Arbitraries.oneOf(
        line.list().ofMaxSize(12).map(l -> String.join("\n", l) + "\n"),
        Arbitraries.strings().ofMaxLength(200));
  }

  @Property(tries = 400)
  void anyAntFileLoadsOrFailsWithBoundedPrintableProblems(@ForAll("documents") String doc) throws IOException {
    Path dir = Files.createTempDirectory("colony-prop");
    try {
      Files.writeString(dir.resolve("colony.yaml"), "name: c\n");
      Files.createDirectories(dir.resolve("ants"));
      Files.writeString(dir.resolve("ants/a.yaml"), doc);
      // jqwik runs outside JUnit Jupiter's @Timeout: the property bounds its own time
      ConfigException e = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(10),
          () -> {
            try {
              new ColonyLoader(ENV).loadDir(dir);
              return null;
            } catch (ConfigException failed) {
              return failed;
            }
          }, () -> "loading took over 10 s:\n" + doc);
      if (e != null) {
        if (e.problems().isEmpty()) {
          throw new AssertionError("a failure without a problem for:\n" + doc);
        }
        for (Problem p : e.problems()) {
          if (!p.file().equals("ants/a.yaml") && !p.file().equals("colony.yaml")) {
            throw new AssertionError("problem names no file of the colony: " + p.file());
          }
          String text = p.toString();
          if (text.length() > 2 * Problem.MAX_MESSAGE + 60) {
            throw new AssertionError("unbounded problem (" + text.length() + " chars) for:\n" + doc);
          }
          if (text.chars().anyMatch(c -> Character.isISOControl(c))) {
            throw new AssertionError("raw control character in: " + text);
          }
        }
      }
    } finally {
      try (Stream<Path> s = Files.walk(dir)) {
        for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }
}
