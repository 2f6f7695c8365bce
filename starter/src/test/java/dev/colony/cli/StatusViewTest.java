package dev.colony.cli;

import dev.colony.client.AntRow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colony.ant.AntStats;
import dev.colony.ant.AntStatus;
import dev.colony.ant.Lifecycle;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What {@code colony status} and the dev console print: nothing an ant said reaches the terminal raw. */
@Timeout(30)
class StatusViewTest {
  /** Retitles the terminal (OSC 0 ... BEL), clears it (CSI 2J), C1 CSI, a lone CR and a right-to-left override. */
  static final String HOSTILE = "\u001b]0;pwned\u0007\u001b[2J\u009b31mred\rover\u202etxt.exe";
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  static void assertNoRawControls(String out) {
    for (int i = 0; i < out.length(); i++) {
      char c = out.charAt(i);
      boolean bad = c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f && c <= 0x9f
          || c >= 0x202a && c <= 0x202e || c >= 0x2066 && c <= 0x2069;
      assertTrue(!bad, String.format("raw U+%04X at %d in: %s", (int) c, i, out));
    }
  }

  private static AntRow row() {
    return new AntRow("c", "evil", "ant/c/evil", "backoff", true, HOSTILE, 3, 2, 0, NOW.plusSeconds(60), true,
        "error: " + HOSTILE, "command", "does " + HOSTILE, "host" + HOSTILE, "colony-c", true, 0);
  }

  private static AntStatus status() {
    return new AntStatus("c", "evil", Lifecycle.COOLING_DOWN, true, HOSTILE, 0, 3, 2, null, "error",
        "exit code 1: " + HOSTILE, "command", List.of(), "issues " + HOSTILE, 0, 3, "backoff " + HOSTILE, 2,
        "spend " + HOSTILE, "supervisor " + HOSTILE, "host " + HOSTILE);
  }

  @Test
  void theTableEscapesWhatAnAntReported() {
    String out = StatusView.table(List.of(row()), NOW);
    assertNoRawControls(out);
    assertTrue(out.contains("\\u001b]0;pwned\\u0007\\u001b[2J"), out);
  }

  @Test
  void oneAntFromVisibilityEscapesWhatAnAntReported() {
    String out = StatusView.detail(row(), NOW);
    assertNoRawControls(out);
    assertTrue(out.contains("\\u001b[2J\\u009b31mred\\rover\\u202etxt.exe"), out);
  }

  @Test
  void oneAntFromItsWorkflowEscapesWhatAnAntReported() {
    AntStats stats = new AntStats("evil", 0, 60, 3, Map.of("error " + HOSTILE, 3), 0, 0, false, 0, 0, 0, 0, null, null, 0);
    String out = StatusView.detail(status(), stats, NOW);
    assertNoRawControls(out);
    assertTrue(out.contains("exit code 1: \\u001b]0;pwned"), out);
  }

  @Test
  void jsonCarriesTheTextExactlyButNothingRawReachesATerminalThatShowsIt() throws Exception {
    String one = StatusView.json("127.0.0.1:7233", "default", status(), null);
    String list = StatusView.json("127.0.0.1:7233", "default", List.of(row()),
        new WorkerCheck(true, 1, null, "colony-c", "127.0.0.1:7233", null));
    for (String out : List.of(one, list)) {
      assertNoRawControls(out);
    }
    // a program reading the JSON gets back exactly what the ant said
    assertEquals("exit code 1: " + HOSTILE, new ObjectMapper().readTree(one).path("ant").path("lastDetail").asText());
    assertEquals("error: " + HOSTILE, new ObjectMapper().readTree(list).path("ants").get(0).path("lastOutcome").asText());
  }
}
