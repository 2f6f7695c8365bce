package dev.colony.cli;

import dev.colony.client.AntRow;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colony.ant.AntStats;
import dev.colony.ant.AntStatus;
import dev.colony.chat.impl.StatusText;
import dev.colony.text.Printable;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * Renders ant status for people (a table) and programs (one JSON document). Both quote what ants,
 * humans and GitHub wrote (last outcome, pause reason, description), so both are made
 * {@link Printable}: the text as a whole; in JSON every character a terminal would act on is a
 * JSON escape (a program reading it gets the same string back).
 */
final class StatusView {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  static {
    JSON.getFactory().setCharacterEscapes(new TerminalSafeEscapes());
  }

  /** JSON's own escapes, plus DEL, the C1 controls and the invisible format characters. */
  private static final class TerminalSafeEscapes extends CharacterEscapes {
    private final int[] ascii = CharacterEscapes.standardAsciiEscapesForJSON();

    TerminalSafeEscapes() {
      ascii[0x7f] = CharacterEscapes.ESCAPE_STANDARD;
    }

    @Override
    public int[] getEscapeCodesForAscii() {
      return ascii;
    }

    @Override
    public SerializableString getEscapeSequence(int ch) {
      return ch <= 0xffff && Printable.unsafe((char) ch) ? new SerializedString(Printable.escaped((char) ch)) : null;
    }
  }

  private StatusView() {}

  static String table(List<AntRow> ants, Instant now) {
    if (ants.isEmpty()) {
      return "no ants are running.\n";
    }
    int width = 18;
    for (AntRow a : ants) {
      width = Math.max(width, a.colony().length() + 1 + a.ant().length());
    }
    StringBuilder sb = new StringBuilder();
    String fmt = "%-" + width + "s %-16s %-9s %8s %6s %5s  %-22s %s%n";
    sb.append(String.format(fmt, "ANT", "STATE", "PAUSED", "SESSIONS", "ERRORS", "QUEUE", "NEXT WAKE", "LAST OUTCOME"));
    for (AntRow a : ants) {
      String paused = a.paused() ? (a.pauseReason() == null ? "yes" : a.pauseReason()) : "no";
      String last = a.lastOutcome() == null ? "-" : a.lastOutcome();
      if (a.needsHuman()) {
        last = last + "  ⚠ needs a human";
      }
      sb.append(String.format(fmt, a.colony() + "/" + a.ant(), a.state(), paused, a.sessions(), a.errors(),
          a.queue(), wake(a.nextWake() == null ? null : a.nextWake().toString(), now), last));
    }
    return Printable.of(sb.toString());
  }

  /** One ant from visibility only (no worker answered). */
  static String detail(AntRow a, Instant now) {
    StringBuilder sb = new StringBuilder();
    sb.append(a.colony()).append('/').append(a.ant()).append(" (engine ").append(a.engine() == null ? "?" : a.engine()).append(")\n");
    if (a.description() != null) {
      sb.append("  description:        ").append(a.description()).append('\n');
    }
    sb.append("  state:              ").append(a.state()).append('\n');
    sb.append("  paused:             ").append(a.paused() ? "yes (" + a.pauseReason() + ")" : "no").append('\n');
    sb.append("  queued messages:    ").append(a.queue()).append('\n');
    sb.append("  sessions:           ").append(a.sessions()).append('\n');
    sb.append("  consecutive errors: ").append(a.errors()).append('\n');
    sb.append("  next wake:          ").append(wake(a.nextWake() == null ? null : a.nextWake().toString(), now)).append('\n');
    sb.append("  last outcome:       ").append(a.lastOutcome() == null ? "-" : a.lastOutcome()).append('\n');
    sb.append("  needs a human:      ").append(a.needsHuman() ? "yes" : "no").append('\n');
    return Printable.of(sb.toString());
  }

  static String detail(AntStatus a, AntStats s, Instant now) {
    return Printable.of(StatusText.detail(a, s, now));
  }

  /** Every ant from visibility, plus whether a worker polls. */
  static String json(String address, String namespace, List<AntRow> ants, WorkerCheck workers) {
    ObjectNode root = JSON.createObjectNode();
    TreeSet<String> colonies = new TreeSet<>();
    ants.forEach(a -> colonies.add(a.colony()));
    root.put("colony", colonies.size() == 1 ? colonies.first() : null);
    ArrayNode cs = root.putArray("colonies");
    colonies.forEach(cs::add);
    root.put("address", address);
    root.put("namespace", namespace);
    ObjectNode w = root.putObject("workers");
    w.put("taskQueue", workers.taskQueue());
    if (workers.polling() == null) {
      w.putNull("polling");
    } else {
      w.put("polling", workers.polling());
    }
    w.put("pollers", workers.pollers());
    // After `colony upgrade` only this version's workers get the queue's tasks.
    w.put("currentVersion", workers.current() == null ? null : workers.current().toString());
    w.put("lastPoll", workers.lastSeen() == null ? null : workers.lastSeen().toString());
    ArrayNode list = root.putArray("ants");
    for (AntRow a : ants) {
      ObjectNode n = list.addObject();
      n.put("colony", a.colony());
      n.put("name", a.ant());
      n.put("workflowId", a.workflowId());
      n.put("state", a.state());
      n.put("paused", a.paused());
      n.put("pauseReason", a.pauseReason());
      n.put("queueDepth", a.queue());
      n.put("sessions", a.sessions());
      n.put("consecutiveErrors", a.errors());
      n.put("nextWakeTime", a.nextWake() == null ? null : a.nextWake().toString());
      n.put("needsHuman", a.needsHuman());
      n.put("lastOutcome", a.lastOutcome());
      n.put("engine", a.engine());
      n.put("description", a.description());
      n.put("host", a.host());
    }
    return write(root);
  }

  /** One ant as its workflow reports it (status and stats queries). */
  static String json(String address, String namespace, AntStatus a, AntStats s) {
    ObjectNode root = JSON.createObjectNode();
    root.put("address", address);
    root.put("namespace", namespace);
    ObjectNode n = root.putObject("ant");
    n.put("colony", a.colony());
    n.put("name", a.ant());
    n.put("state", a.state().name().toLowerCase(Locale.ROOT));
    n.put("paused", a.paused());
    n.put("pauseReason", a.pauseReason());
    n.put("queueDepth", a.queueDepth());
    n.put("sessions", a.sessions());
    n.put("consecutiveErrors", a.consecutiveErrors());
    n.put("nextWakeTime", a.nextWakeTime());
    n.put("lastOutcome", a.lastOutcome());
    n.put("lastDetail", a.lastDetail());
    n.put("engine", a.engine());
    n.set("confirmations", JSON.valueToTree(a.confirmations()));
    n.put("wakesOn", a.wakesOn());
    n.put("pendingIssues", a.pendingIssues());
    n.put("host", a.host());
    if (s != null) {
      n.set("stats", JSON.valueToTree(s));
    }
    return write(root);
  }

  private static String write(ObjectNode root) {
    try {
      return JSON.writeValueAsString(root) + "\n";
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static String wake(String iso, Instant now) {
    return StatusText.wake(iso, now);
  }

  static String human(Duration d) {
    return StatusText.human(d);
  }
}
