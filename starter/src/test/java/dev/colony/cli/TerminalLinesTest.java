package dev.colony.cli;

import static dev.colony.cli.StatusViewTest.HOSTILE;
import static dev.colony.cli.StatusViewTest.assertNoRawControls;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.colony.fakes.FakeNtfy;
import dev.colony.fakes.FakeSlack;
import dev.colony.fakes.FakesTerminal;
import dev.colony.supervision.ColonyEvent;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The other terminal printers of text that came from an ant, a human or a chat: observe and the fakes console. */
@Timeout(30)
class TerminalLinesTest {
  @Test
  void observePrintsTheSupervisorsEventsEscaped() {
    String out = ObserveCommand.line(new ColonyEvent(1, 0, "agent_failed", "evil", "g", "one_for_one",
        "exit code 1: " + HOSTILE));
    assertNoRawControls(out);
    assertTrue(out.contains("exit code 1: \\u001b]0;pwned"), out);
  }

  @Test
  void theFakesConsolePrintsPostsAndPushesEscaped() {
    String slack = FakesTerminal.line(new FakeSlack.Message(FakesTerminal.WORK, "1.0", null, "B1", "hi " + HOSTILE,
        null, JsonNodeFactory.instance.objectNode()));
    String ntfy = FakesTerminal.line(new FakeNtfy.Message("1", "topic" + HOSTILE, "title " + HOSTILE,
        "body " + HOSTILE, 3, List.of(), "https://x/" + HOSTILE, null, null));
    for (String out : List.of(slack, ntfy)) {
      assertNoRawControls(out);
      assertTrue(out.contains("\\u001b]0;pwned"), out);
    }
  }
}
