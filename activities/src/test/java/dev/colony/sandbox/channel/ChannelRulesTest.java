package dev.colony.sandbox.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.mailbox.Mail;
import dev.colony.sandbox.channel.ChannelRules.Identity;
import dev.colony.sandbox.channel.ChannelRules.Refused;
import dev.colony.sandbox.channel.ChannelRules.Send;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What an ant may ask of its colony from inside its session: mail as itself, its own status. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ChannelRulesTest {
  static final Identity SCOUT = new Identity("mailbox", "scout", 7);

  private static ChannelRules.Request decide(String... argv) {
    return ChannelRules.decide(List.of(argv), SCOUT);
  }

  private static String refused(String... argv) {
    ChannelRules.Request r = decide(argv);
    return assertInstanceOf(Refused.class, r, () -> String.join(" ", argv) + " was allowed: " + r).line();
  }

  @Test
  void mailToAPeerGoesFromTheAntItselfWithTheIdTheCliDerives() {
    Send s = assertInstanceOf(Send.class, decide("send", "--from", "scout", "builder", "finding", "1"));
    assertEquals("builder", s.to());
    assertEquals(new Mail("finding 1", false, "scout", Mail.derivedId("scout", "7", "builder", "finding 1")), s.mail());
    Send named = assertInstanceOf(Send.class, decide("send", "--from=scout", "--urgent", "mailbox/builder", "now"));
    assertEquals("builder", named.to());
    assertTrue(named.mail().urgent());
    Send sameColony = assertInstanceOf(Send.class, decide("send", "--colony", "mailbox", "--from", "scout", "builder", "x"));
    assertEquals("builder", sameColony.to());
  }

  @Test
  void sendingAsAnotherAntIsRefusedNotRewritten() {
    String line = refused("send", "--from", "builder", "tester", "from the builder, honest");
    assertEquals("not available inside an ant's session: sending as another ant ('builder'); this session is ant 'scout'", line);
    assertTrue(refused("send", "--from=builder", "tester", "x").contains("sending as another ant"));
  }

  @Test
  void sendingWithoutSayingWhoIsRefused() {
    // Without --from the CLI sends as a human operator: an ant never may.
    assertTrue(refused("send", "builder", "do this").startsWith("not available inside an ant's session: send without --from"));
  }

  @Test
  void mailToAnotherColonyIsRefused() {
    assertTrue(refused("send", "--from", "scout", "other/builder", "x").contains("mail to another colony ('other')"));
    assertTrue(refused("send", "--colony", "other", "--from", "scout", "builder", "x").contains("mail to another colony"));
  }

  @Test
  void badMailGetsTheCliLines() {
    assertEquals("an ant cannot send a message to itself ('scout')", refused("send", "--from", "scout", "scout", "hi"));
    assertEquals("the message is empty", refused("send", "--from", "scout", "builder", " "));
    assertEquals("the message is 20,000 characters; an ant may send at most 16,000",
        refused("send", "--from", "scout", "builder", "x".repeat(20_000)));
    assertTrue(refused("send", "--from", "scout", "b@d", "hi").startsWith("PEER must be an ant name"));
    assertTrue(refused("send", "--from", "scout", "builder").startsWith("usage: send --from ANT PEER TEXT"));
    assertEquals("unknown option '--as' for send", refused("send", "--as", "builder", "x", "y"));
    assertEquals("missing value for --from", refused("send", "builder", "x", "--from"));
  }

  @Test
  void anIdTheAgentChoosesCannotMatchAnotherSendersId() {
    Send s = assertInstanceOf(Send.class, decide("send", "--from", "scout", "--id", "k1", "builder", "x"));
    assertEquals("ant:scout:k1", s.mail().id());
    assertNotEquals(Mail.derivedId("builder", "7", "tester", "x"), s.mail().id());
  }

  @Test
  void itsOwnStatusOnly() {
    assertInstanceOf(ChannelRules.Status.class, decide("status"));
    assertInstanceOf(ChannelRules.Status.class, decide("status", "scout"));
    assertInstanceOf(ChannelRules.Status.class, decide("status", "mailbox/scout"));
    assertEquals("not available inside an ant's session: the status of another ant ('builder'); an ant reads its own status only",
        refused("status", "builder"));
    assertTrue(refused("status", "--json").startsWith("not available inside an ant's session: status --json"));
  }

  @Test
  void everyOtherCommandIsRefusedWithOneLine() {
    // Pausing, stopping, resuming (itself included: a budget pause is not its to lift), answering a
    // confirmation, budgets, the task board's and merge queue's decisions, starting ants, servers.
    for (List<String> argv : List.of(List.of("pause", "builder"), List.of("resume", "scout"), List.of("stop", "builder"),
        List.of("abort", "scout"), List.of("clear", "builder"), List.of("approve", "scout", "c1"),
        List.of("deny", "scout", "c1"), List.of("task", "approve", "t1"), List.of("task", "add", "x"),
        List.of("merge", "approve", "repo", "1"), List.of("start", "."), List.of("worker"), List.of("stats", "scout"),
        List.of("budget", "scout"), List.of("upgrade"), List.of("console"), List.of("dev", "."))) {
      String line = refused(argv.toArray(String[]::new));
      assertTrue(line.startsWith("not available inside an ant's session: colony " + argv.get(0) + " ("), line);
      assertTrue(!line.contains("\n"), line);
    }
    assertTrue(refused().startsWith("no command given"));
    assertInstanceOf(ChannelRules.Help.class, decide("--help"));
  }

  @Test
  void whatTheAgentWroteIsShownBackPrintableAndBounded() {
    String line = refused("\u001b[31mpause\nme" + "y".repeat(500));
    assertTrue(!line.contains("\u001b") && !line.contains("\n") && line.length() < 300, line);
  }
}
