package dev.colony.toolgate;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.colony.spec.ConfirmationSpec;
import dev.colony.testing.JqwikSeeds;
import java.time.Duration;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * The shell parser decides what an agent's tool call runs, and so what needs a human's yes:
 * whatever the command line, it must not throw or hang, and a dangerous command must stay
 * dangerous however it is wrapped (quotes, subshells, {@code &&}, {@code ;}, assignments,
 * wrappers, whitespace). Fuzzed as the config loader is ({@code ColonyLoaderPropertyTest}).
 * jqwik runs outside JUnit Jupiter's {@code @Timeout}: each property bounds its own time, as a
 * guard against a hang (a parse that blows up exponentially never ends), not a measure of speed:
 * the bound is far above what a loaded 2-core machine needs (5 s was, once, on a 200,000-word line
 * while the machine ran two builds).
 */
@AddLifecycleHook(JqwikSeeds.class)
class ShellParserPropertyTest {
  private static final DangerDetector DETECTOR = new DangerDetector(ConfirmationSpec.NONE);
  private static final Duration BOUND = Duration.ofSeconds(60);

  /** Commands the built-in rules must catch, each written as a shell would split it. */
  private static final List<List<String>> DANGEROUS = List.of(
      List.of("git", "push", "origin", "main"),
      List.of("git", "-C", "/repo", "push"),
      List.of("rm", "-rf", "/tmp/build"),
      List.of("rm", "-r", "-f", "dir"),
      List.of("rm", "--recursive", "x"),
      List.of("sudo", "apt", "install", "curl"),
      List.of("doas", "reboot"));

  @Provide
  Arbitrary<String> lines() {
    return Arbitraries.oneOf(
        Arbitraries.strings().ofMaxLength(120),
        Arbitraries.strings().withChars("$()`'\"\\;&|<>{}#= \t\nabgitpushrmsudo-").ofMaxLength(120),
        Arbitraries.of("$(", "`", "'", "\"", "\\", "<(", "$((", "))", "&&", "||", ";;", "|&", "#", "\n", "{", "}", "eval",
            "bash -c", "git push", "rm -rf", "sudo").list().ofMaxSize(40).map(l -> String.join(" ", l)));
  }

  @Property(tries = 2000)
  void anyCommandLineIsParsedAndCheckedWithoutAnException(@ForAll("lines") String line) {
    assertTimeoutPreemptively(BOUND, () -> {
      ShellParser.parse(line);
      DETECTOR.checkShell(line);
    }, () -> "too slow for: " + line);
  }

  @Provide
  Arbitrary<String> huge() {
    return Combinators.combine(
        Arbitraries.of("$(", "`", "'", "\"", "\\", "<(", "(", ")", "eval ", "bash -c ", "env ", "A=1 ", "x ", "; ",
            "&& ", "| ", "{ ", "\"$(", "nohup "),
        Arbitraries.integers().between(20_000, 100_000))
        .as((piece, n) -> piece.repeat(n) + "git push");
  }

  @Property(tries = 40)
  void aHugeCommandLineIsCheckedInBoundedTime(@ForAll("huge") String line) {
    assertTimeoutPreemptively(BOUND, () -> {
      ShellParser.parse(line);
      DETECTOR.checkShell(line);
    }, () -> "too slow for a line of " + line.length() + " chars starting " + line.substring(0, 40));
  }

  /** One way of wrapping a command that still runs it. */
  enum Wrap {
    SEQUENCE, AND, OR_AFTER, AFTER_SEMI, ASSIGNMENT, ENV, NOHUP, TIMEOUT, SUBSHELL, GROUP, COMMAND_SUBSTITUTION,
    BACKTICKS, QUOTED_SUBSTITUTION, BASH_C, EVAL, PIPE_FROM, BACKGROUND, NEWLINE
  }

  @Provide
  Arbitrary<String> spacing() {
    return Arbitraries.of(" ", "  ", "\t", " \t ", "   ");
  }

  /** A word of the command, spelled with quotes or escapes a shell removes. */
  private static String spell(String word, int how) {
    return switch (how % 5) {
      case 0 -> word;
      case 1 -> "'" + word + "'";
      case 2 -> "\"" + word + "\"";
      case 3 -> word.length() > 1 ? word.charAt(0) + "\"" + word.substring(1) + "\"" : word;
      default -> word.length() > 1 ? "\\" + word : word;
    };
  }

  /** {@code c} as one word that a shell turns back into {@code c}: single quotes, or double ones escaped. */
  private static String quoted(String c) {
    if (!c.contains("'")) {
      return "'" + c + "'";
    }
    return "\"" + c.replace("\\", "\\\\").replace("\"", "\\\"").replace("$", "\\$").replace("`", "\\`") + "\"";
  }

  private static String wrap(String c, Wrap w, String sp) {
    return switch (w) {
      case SEQUENCE -> "echo ok;" + sp + c;
      case AND -> "make" + sp + "&&" + sp + c;
      case OR_AFTER -> "false" + sp + "||" + sp + c;
      case AFTER_SEMI -> c + sp + ";" + sp + "echo done";
      case ASSIGNMENT -> "FOO=bar" + sp + c;
      case ENV -> "env" + sp + "A=1" + sp + c;
      case NOHUP -> "nohup" + sp + c + sp + "&";
      case TIMEOUT -> "timeout" + sp + "10" + sp + c;
      case SUBSHELL -> "(" + sp + c + sp + ")";
      case GROUP -> "{" + sp + c + ";" + sp + "}";
      case COMMAND_SUBSTITUTION -> "echo" + sp + "$(" + c + ")";
      case BACKTICKS -> c.contains("`") ? "echo $(" + c + ")" : "echo" + sp + "`" + c + "`";
      case QUOTED_SUBSTITUTION -> "echo" + sp + "\"$(" + c + ")\"";
      case BASH_C -> "bash" + sp + "-c" + sp + quoted(c);
      case EVAL -> "eval" + sp + quoted(c);
      case PIPE_FROM -> "cat x" + sp + "|" + sp + c;
      case BACKGROUND -> c + sp + "&";
      case NEWLINE -> "cd repo\n" + c;
    };
  }

  @Property(tries = 3000)
  void aDangerousCommandStaysDangerousHoweverItIsWrapped(
      @ForAll @IntRange(min = 0, max = 6) int which,
      @ForAll("spellings") List<Integer> spelling,
      @ForAll("wraps") List<Wrap> wraps,
      @ForAll("spacing") String sp) {
    List<String> words = DANGEROUS.get(which);
    StringBuilder c = new StringBuilder();
    for (int k = 0; k < words.size(); k++) {
      c.append(k == 0 ? "" : sp).append(spell(words.get(k), k < spelling.size() ? spelling.get(k) : 0));
    }
    String line = c.toString();
    for (Wrap w : wraps) {
      line = wrap(line, w, sp);
    }
    String shown = line;
    if (DETECTOR.checkShell(shown).isEmpty()) {
      throw new AssertionError("not caught: " + shown);
    }
  }

  @Provide
  Arbitrary<List<Integer>> spellings() {
    return Arbitraries.integers().between(0, 4).list().ofMaxSize(4);
  }

  @Provide
  Arbitrary<List<Wrap>> wraps() {
    return Arbitraries.of(Wrap.class).list().ofMaxSize(4);
  }

  @net.jqwik.api.Example
  void deepNestingIsStillChecked() {
    for (int depth = 1; depth <= 30; depth++) {
      String line = "echo $(".repeat(depth) + "git push" + ")".repeat(depth);
      if (DETECTOR.checkShell(line).isEmpty()) {
        throw new AssertionError("not caught at depth " + depth + ": " + line);
      }
    }
  }

  @net.jqwik.api.Example
  void aLongChainOfEvalsIsCheckedInBoundedTime() {
    for (String piece : List.of("eval ", "env ", "nohup ", "A=1 ", "timeout 1 ", "sudo ")) {
      String line = piece.repeat(200_000) + "git push";
      assertTimeoutPreemptively(BOUND, () -> {
        if (DETECTOR.checkShell(line).isEmpty()) {
          throw new AssertionError("not caught: " + piece + "x 200000 git push");
        }
      });
    }
  }
}
