package dev.colony.sandbox.channel;

import dev.colony.mailbox.Mail;
import java.util.ArrayList;
import java.util.List;

/**
 * What an ant may ask of its colony from inside its session, decided from the command line its
 * {@code $COLONY_BIN} was given and from who the channel belongs to (never from what the agent
 * says it is). Allowed: {@code send --from ANT PEER TEXT...} (mail to a peer of its own colony, as
 * itself) and {@code status} (its own). Everything else of the {@code colony} CLI is refused with
 * one line: pausing, stopping or resuming any ant (itself included), answering a confirmation,
 * budgets, the task board's and the merge queue's decisions, anything on another ant.
 */
public final class ChannelRules {
  private ChannelRules() {}

  /** Who a channel belongs to: set by the worker when it opens the channel for a session. */
  public record Identity(String colony, String ant, int session) {}

  /** A request the channel carries out, or its refusal. */
  public sealed interface Request permits Send, Status, Help, Refused {}

  /** Mail to a peer of the same colony, from the channel's ant. */
  public record Send(String to, Mail mail) implements Request {}

  /** The channel's ant's own status. */
  public record Status() implements Request {}

  /** What the channel offers (exit 0). */
  public record Help(String text) implements Request {}

  /** One line saying why not (exit 1). */
  public record Refused(String line) implements Request {}

  static final String NOT_INSIDE = "not available inside an ant's session: ";
  static final String NAME = "[A-Za-z0-9][A-Za-z0-9_.-]{0,62}";

  /** The commands an ant may run, for the refusals and {@code --help}. */
  public static final String ALLOWED = "an ant may run `send --from \"$COLONY_ANT\" PEER TEXT...` (mail to a peer "
      + "of its colony) and `status` (its own)";

  /** Decides what {@code argv} (the arguments after the program) asks for, on behalf of {@code who}. */
  public static Request decide(List<String> argv, Identity who) {
    if (argv.isEmpty()) {
      return new Refused("no command given: " + ALLOWED);
    }
    String command = argv.get(0);
    List<String> rest = argv.subList(1, argv.size());
    return switch (command) {
      case "send" -> send(rest, who);
      case "status" -> status(rest, who);
      case "help", "-h", "--help" -> new Help("Inside an ant's session " + ALLOWED + ".\n"
          + "  send --from ANT [--urgent] [--id KEY] PEER TEXT...   mail to PEER, from this ant\n"
          + "  status                                               this ant's status");
      default -> new Refused(NOT_INSIDE + "colony " + printable(command) + " (" + ALLOWED + ")");
    };
  }

  private static Request send(List<String> args, Identity who) {
    String from = null;
    String colony = null;
    String id = null;
    boolean urgent = false;
    List<String> positional = new ArrayList<>();
    boolean options = true;
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (options && a.equals("--")) {
        options = false;
        continue;
      }
      if (options && a.startsWith("-") && a.length() > 1) {
        String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
        String value = a.contains("=") ? a.substring(a.indexOf('=') + 1) : null;
        switch (name) {
          case "--urgent" -> {
            if (value != null) {
              return new Refused("--urgent takes no value");
            }
            urgent = true;
          }
          case "--from", "--colony", "--id" -> {
            if (value == null) {
              if (i + 1 >= args.size()) {
                return new Refused("missing value for " + name);
              }
              value = args.get(++i);
            }
            switch (name) {
              case "--from" -> from = value;
              case "--colony" -> colony = value;
              default -> id = value;
            }
          }
          case "-h", "--help" -> {
            return decide(List.of("--help"), who);
          }
          default -> {
            return new Refused("unknown option '" + printable(name) + "' for send");
          }
        }
        continue;
      }
      positional.add(a);
    }
    if (positional.size() < 2) {
      return new Refused("usage: send --from ANT PEER TEXT... (missing " + (positional.isEmpty() ? "PEER and TEXT" : "TEXT") + ")");
    }
    // Identity comes from the channel: the agent must say who it is, and may only say the truth.
    if (from == null) {
      return new Refused(NOT_INSIDE + "send without --from (mail from an ant says which ant wrote it: "
          + "send --from \"$COLONY_ANT\" PEER TEXT)");
    }
    if (!from.strip().equals(who.ant())) {
      return new Refused(NOT_INSIDE + "sending as another ant ('" + printable(from) + "'); this session is ant '"
          + who.ant() + "'");
    }
    if (colony != null && !colony.equals(who.colony())) {
      return new Refused(NOT_INSIDE + "mail to another colony ('" + printable(colony) + "'); peers are the ants of colony '"
          + who.colony() + "'");
    }
    String to = positional.get(0);
    if (to.contains("/")) {
      String c = to.substring(0, to.indexOf('/'));
      if (!c.equals(who.colony())) {
        return new Refused(NOT_INSIDE + "mail to another colony ('" + printable(c) + "'); peers are the ants of colony '"
            + who.colony() + "'");
      }
      to = to.substring(to.indexOf('/') + 1);
    }
    if (!to.matches(NAME)) {
      return new Refused("PEER must be an ant name (letters, digits, '.', '_', '-'), not '" + printable(to) + "'");
    }
    String text;
    try {
      // The bounds of an ant's mail, as `colony send --from` reads them: the one parser of verbs.
      text = dev.colony.client.Verbs.fromAnt(who.ant(), to, String.join(" ", positional.subList(1, positional.size())),
          urgent, null).text();
    } catch (dev.colony.client.VerbRefused refusal) {
      return new Refused(refusal.getMessage());
    }
    if (id != null && (id.isBlank() || id.length() > 200)) {
      return new Refused("--id must be 1 to 200 characters");
    }
    // As the CLI does inside a session: the id follows from sender, session, recipient and text,
    // so a retried session's repeat is dropped. An id the agent chose is kept under its own name,
    // so it cannot match (and so drop) another sender's message.
    String key = id != null ? "ant:" + who.ant() + ":" + id
        : Mail.derivedId(who.ant(), Integer.toString(who.session()), to, text);
    return new Send(to, new Mail(text, urgent, who.ant(), key));
  }

  private static Request status(List<String> args, Identity who) {
    if (args.isEmpty()) {
      return new Status();
    }
    if (args.size() == 1) {
      String a = args.get(0);
      if (a.equals(who.ant()) || a.equals(who.colony() + "/" + who.ant())) {
        return new Status();
      }
      if (!a.startsWith("-")) {
        return new Refused(NOT_INSIDE + "the status of another ant ('" + printable(a) + "'); an ant reads its own status only");
      }
    }
    return new Refused(NOT_INSIDE + "status " + printable(String.join(" ", args)) + " (an ant reads its own status: status)");
  }

  /** A word from the agent, fit for one line of an answer: control characters out, bounded. */
  static String printable(String s) {
    String p = Mail.printable(s);
    return p.length() > 80 ? p.substring(0, 80) + "..." : p;
  }
}
