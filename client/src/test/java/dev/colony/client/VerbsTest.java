package dev.colony.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.ant.AntWorkflow;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The one reading of the words that steer an ant: every verb, old name, bound and refusal. */
@Timeout(30)
class VerbsTest {
  private static final Verbs NAMED = Verbs.named();
  private static final Verbs CHAT = Verbs.typed("/");
  private static final Verbs SLACK = Verbs.typed("/colony ");
  private static final int MAX = AntWorkflow.MAX_MESSAGE_CHARS;

  private static String refusal(Runnable parse) {
    return assertThrows(VerbRefused.class, parse::run).getMessage();
  }

  @Test
  void everyNamedWordIsItsVerbAndWrittenBackAsItself() {
    assertEquals(new AntVerb.Pause(), NAMED.parse("pause", ""));
    assertEquals(new AntVerb.Resume(), NAMED.parse("resume", ""));
    assertEquals(new AntVerb.Stop(), NAMED.parse("stop", ""), "named, stop ends the ant for good");
    assertEquals(new AntVerb.Abort(), NAMED.parse("abort", ""));
    assertEquals(new AntVerb.Clear(), NAMED.parse("clear", ""));
    assertEquals(new AntVerb.Send("fix it", false, null, null), NAMED.parse("send", " fix it "));
    assertEquals(new AntVerb.Send("now", true, null, null), NAMED.parse("urgent", "now"));
    assertEquals(new AntVerb.Decide(3, true, "fine"), NAMED.action("approve", null, 3, " fine "));
    assertEquals(new AntVerb.Decide(null, false, null), NAMED.action("deny", null, null, " "));
    assertEquals(new AntVerb.Send("t", true, null, null), NAMED.action("urgent", "t", null, null));
    assertEquals(new AntVerb.Pause(), NAMED.action("PAUSE", null, null, null), "any case");
    for (String w : Verbs.NAMED) {
      AntVerb v = w.equals("send") || w.equals("urgent") ? NAMED.parse(w, "x") : NAMED.parse(w, "");
      assertEquals(w, v.word(), "a verb is written back with the word that named it");
    }
  }

  @Test
  void everyTypedWordAndTheOldNameStart() {
    assertEquals(new AntVerb.Status(), CHAT.parse("status", ""));
    assertEquals(new AntVerb.Stats(), CHAT.parse("stats", ""));
    assertEquals(new AntVerb.Stats(), CHAT.parse("usage", ""));
    assertEquals(new AntVerb.Pause(), CHAT.parse("Pause", ""));
    assertEquals(new AntVerb.Resume(), CHAT.parse("resume", ""));
    assertEquals(new AntVerb.Clear(), CHAT.parse("clear", ""));
    assertEquals(new AntVerb.Abort(), CHAT.parse("abort", ""));
    assertEquals(new AntVerb.Send("rotate the logs", true, null, null), CHAT.parse("urgent", "rotate the logs"));
    assertEquals(new AntVerb.Decide(null, true, null), CHAT.parse("approve", ""));
    assertEquals(new AntVerb.Decide(7, false, "too risky"), CHAT.parse("deny", "7 too risky"));
    // The old name is read, and written back as the verb it names.
    assertEquals(new AntVerb.Resume(), CHAT.parse("start", ""));
    assertEquals("resume", CHAT.word("start"));
    assertEquals("pause", CHAT.word("pause"));
    assertFalse(Verbs.TYPED.contains("start"), "an old name is never offered");
    assertFalse(Verbs.TYPED.contains("stop"));
    assertTrue(CHAT.knows("start") && CHAT.knows("stop") && !CHAT.knows("send"));
    // Named, the old name is no verb: `colony start` deploys ants.
    assertEquals("Unknown command `start` (pause, resume, stop, abort, clear, send, urgent, approve, deny).",
        refusal(() -> NAMED.parse("start", "")));
  }

  @Test
  void typedStopDoesNothingAndSaysWhichWordToUse() {
    assertEquals("`/stop` does nothing here, as it could mean two things: `/pause` pauses the ant after its current "
        + "session (`/resume` goes on); to stop it for good, `colony stop ANT` or the console's Stop.",
        refusal(() -> CHAT.parse("stop", "")));
    assertEquals("`/colony stop` does nothing here, as it could mean two things: `/colony pause` pauses the ant after "
        + "its current session (`/colony resume` goes on); to stop it for good, `colony stop ANT` or the console's Stop.",
        refusal(() -> SLACK.parse("STOP", "now")), "Slack spells its words its own way; the sentence is the same");
  }

  @Test
  void unknownWordsAreRefusedWithTheWordShownInertAndBounded() {
    assertEquals("Unknown command `/frobnicate`. Run `/help` for the list.", refusal(() -> CHAT.parse("frobnicate", "")));
    assertEquals("Unknown command `/ab`. Run `/help` for the list.", refusal(() -> CHAT.parse("a`b", "")));
    assertEquals("Unknown command `/" + "x".repeat(40) + "…`. Run `/help` for the list.",
        refusal(() -> CHAT.parse("x".repeat(50), "")));
    assertEquals("Unknown command `/send`. Run `/help` for the list.", refusal(() -> CHAT.parse("send", "x")),
        "typed, a message is plain text: send is no word");
    assertEquals("Unknown command `status` (pause, resume, stop, abort, clear, send, urgent, approve, deny).",
        refusal(() -> NAMED.parse("status", "")), "named, reads are the surface's own commands");
  }

  @Test
  void anEmptyMessageIsRefusedWithTheWordAndAnExample() {
    assertEquals("`/urgent` needs the instruction (the message is empty), e.g. `/urgent fix the failing build first`",
        refusal(() -> CHAT.parse("urgent", "  ")));
    // the CLI and the console: no word to type (the instruction follows the ant's name, or fills the box)
    assertEquals("the message is empty: write the instruction, e.g. \"fix the failing build first\"",
        refusal(() -> NAMED.action("send", null, null, null)));
    assertEquals("the urgent message is empty: write the instruction, e.g. \"fix the failing build first\"",
        refusal(() -> NAMED.message("\n\t", true)));
  }

  @Test
  void aHumansLongMessageIsTakenAndTheCutIsSaidInCharactersAHumanSees() {
    String ant = "\uD83D\uDC1C"; // one character, two UTF-16 units
    assertEquals("x".repeat(MAX + 5), NAMED.message("x".repeat(MAX + 5), false).text(), "the ant cuts, not the surface");
    assertEquals("", Verbs.cutNote("x".repeat(MAX)));
    assertEquals(", cut to its first 15,999 of 16,100 characters (send the rest separately)",
        Verbs.cutNote("x".repeat(MAX - 1) + ant + "y".repeat(100)));
    assertEquals(", cut to its first 16,000 of 20,000 characters (send the rest separately)",
        Verbs.cutNote("x".repeat(20_000)));
  }

  @Test
  void aMessagesIdIsBounded() {
    assertEquals("k", NAMED.message("hi", false, "k").id());
    assertEquals("the message's id must be 1 to 200 characters", refusal(() -> NAMED.message("hi", false, " ")));
    assertEquals("the message's id must be 1 to 200 characters", refusal(() -> NAMED.message("hi", false, "k".repeat(201))));
  }

  @Test
  void anAntsMessageHasItsOwnBounds() {
    assertEquals(new AntVerb.Send("hi", true, "scout", "k"), Verbs.fromAnt(" scout ", "builder", " hi ", true, "k"));
    assertEquals("--from must be an ant name (letters, digits, '.', '_', '-'), not 'no body'",
        refusal(() -> Verbs.fromAnt("no body", "builder", "hi", false, null)));
    assertEquals("--from must be an ant name (letters, digits, '.', '_', '-'), not '.x'",
        refusal(() -> Verbs.fromAnt(".x", "builder", "hi", false, null)));
    assertTrue(refusal(() -> Verbs.fromAnt("a".repeat(64), "builder", "hi", false, null))
        .startsWith("--from must be an ant name (letters, digits, '.', '_', '-'), not '" + "a".repeat(63)), "63 at most");
    assertEquals("the message is empty", refusal(() -> Verbs.fromAnt("scout", "builder", " ", false, null)));
    assertEquals("the message is 16,001 characters; an ant may send at most 16,000",
        refusal(() -> Verbs.fromAnt("scout", "builder", "x".repeat(MAX + 1), false, null)), "an ant is refused, not cut");
    assertEquals("an ant cannot send a message to itself ('scout')",
        refusal(() -> Verbs.fromAnt("scout", "scout", "hi", false, null)));
  }

  @Test
  void aDecisionsNumberAndNoteAreBounded() {
    assertEquals(new AntVerb.Decide(12, true, null), CHAT.parse("approve", "12"));
    assertEquals("`/approve` takes a request number (1, 2, ...), not 'abc'", refusal(() -> CHAT.parse("approve", "abc")),
        "a word that is not a number never decides the oldest request instead");
    assertEquals("`/deny` takes a request number (1, 2, ...), not '-1'", refusal(() -> CHAT.parse("deny", "-1")));
    assertEquals("`/deny` takes a request number (1, 2, ...), not '99999999999'",
        refusal(() -> CHAT.parse("deny", "99999999999")));
    assertEquals("`approve` takes a request number (1, 2, ...), not 0", refusal(() -> NAMED.action("approve", null, 0, null)));
    assertEquals("x".repeat(Verbs.MAX_NOTE_CHARS), NAMED.decide(false, 1, "x".repeat(Verbs.MAX_NOTE_CHARS)).note());
    assertEquals("the note is 2,001 characters; a decision's note takes at most 2,000",
        refusal(() -> NAMED.decide(true, null, "x".repeat(Verbs.MAX_NOTE_CHARS + 1))));
    assertNull(NAMED.decide(true, null, null).note());
  }

  @Test
  void theActorIsRecordedTheSameWayFromEverySurface() {
    assertEquals("console:Ada", new Actor("Ada", "console").identity());
    assertEquals("Ada (console)", new Actor("Ada", "console").decidedBy());
    assertEquals("dana (Discord)", new Actor("dana", "Discord").decidedBy());
    assertEquals("erin", new Actor("erin", "cli", true).decidedBy(), "a name given as it is recorded (--by)");
    assertEquals("cli:erin", new Actor("erin", "cli", true).identity());
    assertEquals("someone (Slack)", new Actor(null, "Slack").decidedBy());
    assertEquals("a\\nb (cli)", new Actor("a\nb", "cli").decidedBy(), "one printable line");
    assertInstanceOf(VerbRefused.class, new VerbRefused("x"));
    assertEquals(List.of("pause", "resume", "stop", "abort", "clear", "send", "urgent", "approve", "deny"), Verbs.NAMED);
  }

  /** The old chat words are read in one place (Verbs) and listed in the compatibility ledger, the same ones. */
  @Test
  void theOldWordsAreTheLedgersAndReadOnlyHere() {
    var rows = dev.colony.compat.Compatibility.LEGACY_NAMES.stream()
        .filter(n -> n.kind() == dev.colony.compat.Compatibility.Kind.CHAT_COMMAND).toList();
    assertEquals(java.util.Set.of("start", "stop"),
        rows.stream().map(dev.colony.compat.Compatibility.LegacyName::old).collect(java.util.stream.Collectors.toSet()));
    for (var n : rows) {
      if (n.old().equals("stop")) {
        assertTrue(refusal(() -> CHAT.parse("stop", "")).contains("`/pause` pauses the ant"), "stop answers which word to use");
      } else {
        assertEquals(n.current(), CHAT.word(n.old()), "an old name reads as the verb the ledger names");
        assertEquals(CHAT.parse(n.current(), ""), CHAT.parse(n.old(), ""));
      }
      assertFalse(NAMED.knows(n.old()) && !n.old().equals("stop"), "the CLI and console never take an old name: " + n.old());
    }
  }
}
