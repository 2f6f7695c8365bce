package dev.colony.client;

import dev.colony.ant.AntWorkflow;
import dev.colony.text.Printable;
import dev.colony.text.SafeText;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The one reading of the words that steer an ant, on every surface: which word is which
 * {@link AntVerb}, the old names (read here and nowhere else, never written), the bounds (message
 * size, ant names, note length, request numbers) and every refusal with its one sentence.
 *
 * <p>Two ways of speaking: <b>named</b>, where a surface names the verb itself (a CLI command, a
 * console action), and <b>typed</b>, where a human types a word among instructions (a chat
 * channel, the dev terminal). They differ in one thing: typed {@code stop}. It used to pause
 * there and ends the ant for good where named, so typed it does nothing and says which word to
 * use; an ant is stopped for good only where the verb is named ({@code colony stop}, the
 * console's Stop). A refusal quotes a word as the surface spells it ({@code /urgent} in Discord,
 * {@code urgent} in the CLI); otherwise its text is the same everywhere.
 */
public final class Verbs {
  /** The longest note given with a decision (characters): it is passed on to the agent. */
  public static final int MAX_NOTE_CHARS = 2_000;

  /** An ant's name, as a sender of mail. */
  public static final String ANT_NAME = "[A-Za-z0-9][A-Za-z0-9_.-]{0,62}";

  /** The words where the verb is named (the CLI's commands, the console's actions), in this order. */
  public static final List<String> NAMED = List.of("pause", "resume", "stop", "abort", "clear", "send", "urgent",
      "approve", "deny");

  /** The words a human types (chat, dev terminal), old names left out: they are read, never offered. */
  public static final List<String> TYPED = List.of("status", "stats", "usage", "pause", "resume", "clear", "urgent",
      "abort", "approve", "deny");

  /** Old names, typed only: read here, never written (no help, no answer offers them). */
  private static final Map<String, String> OLD_NAMES = Map.of("start", "resume");

  private final boolean typed;
  private final String prefix;

  private Verbs(boolean typed, String prefix) {
    this.typed = typed;
    this.prefix = prefix;
  }

  /** The words as the CLI and the console name them. */
  public static Verbs named() {
    return new Verbs(false, "");
  }

  /** The words as typed in a chat or the dev terminal, where a command starts with {@code prefix} ("/", "/colony "). */
  public static Verbs typed(String prefix) {
    return new Verbs(true, prefix);
  }

  /** Whether {@code word} (lower case, no prefix) is a verb here, old names included. */
  public boolean knows(String word) {
    return (typed ? TYPED : NAMED).contains(word) || (typed && (OLD_NAMES.containsKey(word) || word.equals("stop")));
  }

  /** {@code word} as it is written back (an old name as the verb it names), lower case. */
  public String word(String word) {
    String w = word == null ? "" : word.toLowerCase(Locale.ROOT);
    return typed ? OLD_NAMES.getOrDefault(w, w) : w;
  }

  /**
   * A command: {@code word} (any case, without the prefix) and what follows it; for a typed
   * {@code approve}/{@code deny}, "[number] [note]", for {@code urgent} (and named {@code send})
   * the instruction. Throws {@link VerbRefused} with the sentence to show.
   */
  public AntVerb parse(String word, String arg) {
    String w = word == null ? "" : word.toLowerCase(Locale.ROOT);
    String rest = arg == null ? "" : arg.strip();
    if (typed) {
      w = OLD_NAMES.getOrDefault(w, w);
      if (w.equals("stop")) {
        throw new VerbRefused(q("stop") + " does nothing here, as it could mean two things: " + q("pause")
            + " pauses the ant after its current session (" + q("resume") + " goes on); to stop it for good, "
            + "`colony stop ANT` or the console's Stop.");
      }
    }
    if (!(typed ? TYPED : NAMED).contains(w)) {
      String shown = w.replaceAll("[^A-Za-z0-9_-]", "");
      shown = shown.length() > 40 ? shown.substring(0, 40) + "…" : shown;
      throw new VerbRefused("Unknown command " + q(shown) + (typed ? ". Run " + q("help") + " for the list."
          : " (" + String.join(", ", NAMED) + ")."));
    }
    return switch (w) {
      case "pause" -> new AntVerb.Pause();
      case "resume" -> new AntVerb.Resume();
      case "stop" -> new AntVerb.Stop();
      case "abort" -> new AntVerb.Abort();
      case "clear" -> new AntVerb.Clear();
      case "status" -> new AntVerb.Status();
      case "stats", "usage" -> new AntVerb.Stats();
      case "send" -> message(rest, false);
      case "urgent" -> message(rest, true);
      case "approve", "deny" -> {
        String[] parts = rest.split("\\s+", 2);
        Integer id = parts[0].isEmpty() ? null : number(w, parts[0]);
        yield decide(w.equals("approve"), id, parts.length > 1 ? parts[1] : null);
      }
      default -> throw new IllegalStateException(w);
    };
  }

  /** A named action with its fields apart (the console's form): {@code text} for a message, {@code id} and {@code note} for a decision. */
  public AntVerb action(String word, String text, Integer id, String note) {
    String w = word == null ? "" : word.toLowerCase(Locale.ROOT);
    return switch (w) {
      case "send", "urgent" -> message(text, w.equals("urgent"));
      case "approve", "deny" -> decide(w.equals("approve"), id, note);
      default -> parse(w, "");
    };
  }

  /** A human's work instruction: refused when empty; a longer one than the ant takes is cut by the ant ({@link #cutNote}). */
  public AntVerb.Send message(String text, boolean urgent) {
    return message(text, urgent, null);
  }

  /** The same with an idempotency key ({@code colony send --id}); null: a fresh one. */
  public AntVerb.Send message(String text, boolean urgent, String id) {
    String t = text == null ? "" : text.strip();
    if (t.isEmpty()) {
      String w = urgent ? "urgent" : "send";
      throw new VerbRefused(q(w) + " needs the instruction (the message is empty), e.g. "
          + q(w + " fix the failing build first"));
    }
    if (id != null && (id.isBlank() || id.length() > 200)) {
      throw new VerbRefused("the message's id must be 1 to 200 characters");
    }
    return new AntVerb.Send(t, urgent, null, id);
  }

  /**
   * A message one ant sends another: the sender must be an ant name, not the recipient, and the
   * message within what an ant takes (an ant is refused, not cut, so it can send the rest).
   */
  public static AntVerb.Send fromAnt(String from, String to, String text, boolean urgent, String id) {
    String sender = from == null ? "" : from.strip();
    if (!sender.matches(ANT_NAME)) {
      throw new VerbRefused("--from must be an ant name (letters, digits, '.', '_', '-'), not '"
          + Printable.line(from == null ? "" : from, 64) + "'");
    }
    String t = text == null ? "" : text.strip();
    if (t.isEmpty()) {
      throw new VerbRefused("the message is empty");
    }
    int max = AntWorkflow.MAX_MESSAGE_CHARS;
    if (t.length() > max) {
      throw new VerbRefused(String.format("the message is %,d characters; an ant may send at most %,d", t.length(), max));
    }
    if (sender.equals(to)) {
      throw new VerbRefused("an ant cannot send a message to itself ('" + sender + "')");
    }
    return new AntVerb.Send(t, urgent, sender, id);
  }

  /** A decision on request {@code id} (null: the oldest waiting) with an optional note. */
  public AntVerb.Decide decide(boolean approve, Integer id, String note) {
    if (id != null && id < 1) {
      throw new VerbRefused(q(approve ? "approve" : "deny") + " takes a request number (1, 2, ...), not " + id);
    }
    String n = note == null || note.isBlank() ? null : note.strip();
    if (n != null && n.length() > MAX_NOTE_CHARS) {
      throw new VerbRefused(String.format("the note is %,d characters; a decision's note takes at most %,d",
          n.length(), MAX_NOTE_CHARS));
    }
    return new AntVerb.Decide(id, approve, n);
  }

  /**
   * What the ant keeps of a human's message over {@link AntWorkflow#MAX_MESSAGE_CHARS}, in
   * characters a human counts: the ant cuts at the limit in UTF-16 units but never through an emoji
   * ({@code SafeText.cut}, as the workflow does), so one across the boundary is left out whole.
   * Empty within the limit.
   */
  public static String cutNote(String text) {
    int max = AntWorkflow.MAX_MESSAGE_CHARS;
    if (text.length() <= max) {
      return "";
    }
    String kept = SafeText.cut(text, max);
    return String.format(", cut to its first %,d of %,d characters (send the rest separately)",
        kept.codePointCount(0, kept.length()), text.codePointCount(0, text.length()));
  }

  private Integer number(String word, String s) {
    if (!s.matches("\\d{1,9}")) {
      throw new VerbRefused(q(word) + " takes a request number (1, 2, ...), not '" + Printable.line(s, 40) + "'");
    }
    return Integer.valueOf(s);
  }

  /** A word as this surface spells it. */
  private String q(String word) {
    return "`" + prefix + word + "`";
  }
}
