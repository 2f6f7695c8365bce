package dev.colony.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.compat.Compatibility.Change;
import dev.colony.compat.Compatibility.History;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.common.WorkflowExecutionHistory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The ledger is the truth about compatibility paths: it names every change id the workflow code
 * asks and only those, every directory of committed histories, and for each change the
 * directories whose histories record its version marker (so that replay takes its new path), or
 * why none does.
 */
@Timeout(60)
class CompatibilityTest {
  static final Path MAIN = Path.of("src/main/java");
  static final Path RESOURCES = Path.of("src/test/resources");
  /** Where committed histories are: each directory under these holds the histories of one recording. */
  static final List<String> ROOTS = List.of("histories", "watcher-histories");
  private static final Path LEDGER = MAIN.resolve("dev/colony/compat/Compatibility.java");
  private static final Pattern USE = Pattern.compile("\\bChange\\.([A-Z_]+)\\b");

  private static Map<Path, String> sources() throws IOException {
    Map<Path, String> out = new TreeMap<>();
    try (Stream<Path> s = Files.walk(MAIN)) {
      for (Path p : s.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
        out.put(p, Files.readString(p));
      }
    }
    return out;
  }

  @Test
  void workflowCodeAsksChangesOnlyThroughTheLedger() throws IOException {
    List<String> calls = new ArrayList<>();
    for (var e : sources().entrySet()) {
      if (!e.getKey().equals(LEDGER) && e.getValue().contains("getVersion(")) {
        calls.add(MAIN.relativize(e.getKey()).toString());
      }
    }
    assertEquals(List.of(), calls, "Workflow.getVersion outside the ledger: ask Compatibility.Change.X.applies()");
  }

  @Test
  void everyChangeInTheLedgerIsAskedByTheCodeAndEveryOneAskedIsInIt() throws IOException {
    TreeSet<String> used = new TreeSet<>();
    for (var e : sources().entrySet()) {
      if (e.getKey().equals(LEDGER)) {
        continue;
      }
      Matcher m = USE.matcher(e.getValue());
      while (m.find()) {
        used.add(m.group(1));
      }
    }
    TreeSet<String> ledger = new TreeSet<>(Arrays.stream(Change.values()).map(Enum::name).toList());
    assertEquals(ledger, used, "the ledger's changes and the ones the code asks");
    assertEquals(Change.values().length, Arrays.stream(Change.values()).map(Change::id).distinct().count(),
        "two ledger rows with one change id");
  }

  @Test
  void theLedgerNamesEveryHistoryDirectoryAndEachExists() throws IOException {
    TreeSet<String> onDisk = new TreeSet<>();
    for (String root : ROOTS) {
      try (Stream<Path> s = Files.list(RESOURCES.resolve(root))) {
        s.forEach(p -> {
          assertTrue(Files.isDirectory(p), p + ": a history outside a directory of its recording");
          onDisk.add(root + "/" + p.getFileName());
        });
      }
    }
    TreeSet<String> ledger = new TreeSet<>(Compatibility.HISTORIES.stream().map(History::dir).toList());
    assertEquals(onDisk, ledger, "history directories on disk and in Compatibility.HISTORIES");
    for (Change c : Change.values()) {
      for (String dir : c.histories()) {
        assertTrue(ledger.contains(dir), c.id() + " names " + dir + ", which the ledger does not list");
      }
    }
  }

  /** The change ids whose version markers the histories of one directory record. */
  static TreeSet<String> markers(Path dir) throws IOException {
    TreeSet<String> ids = new TreeSet<>();
    try (Stream<Path> s = Files.list(dir)) {
      for (Path f : s.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
        for (HistoryEvent e : WorkflowExecutionHistory.fromJson(Files.readString(f)).getEvents()) {
          if (e.hasMarkerRecordedEventAttributes()
              && e.getMarkerRecordedEventAttributes().getMarkerName().equals("Version")) {
            var changeId = e.getMarkerRecordedEventAttributes().getDetailsOrThrow("changeId");
            String json = changeId.getPayloads(0).getData().toStringUtf8();
            ids.add(json.substring(1, json.length() - 1)); // a JSON string
          }
        }
      }
    }
    return ids;
  }

  @Test
  void eachChangeIsExercisedByTheHistoriesItNamesOrSaysWhyNone() throws IOException {
    Map<String, TreeSet<String>> recordedIn = new TreeMap<>();
    for (History h : Compatibility.HISTORIES) {
      for (String id : markers(RESOURCES.resolve(h.dir()))) {
        recordedIn.computeIfAbsent(id, k -> new TreeSet<>()).add(h.dir());
      }
    }
    for (Change c : Change.values()) {
      TreeSet<String> found = recordedIn.getOrDefault(c.id(), new TreeSet<>());
      assertEquals(found, new TreeSet<>(c.histories()),
          c.id() + ": the directories whose histories record its marker, and the ledger's");
      if (found.isEmpty()) {
        assertNotNull(c.unexercised(), c.id() + ": no committed history records it and the ledger says not why");
        assertFalse(c.unexercised().isBlank(), c.id());
      } else {
        assertEquals(null, c.unexercised(), c.id() + " is recorded in " + found + " but flagged unexercised");
      }
    }
    TreeSet<String> unknown = new TreeSet<>(recordedIn.keySet());
    Arrays.stream(Change.values()).map(Change::id).forEach(unknown::remove);
    // A marker of a change the code no longer asks is replayed without a call (the SDK skips it);
    // the ledger must still say so rather than lose it.
    assertEquals(new TreeSet<>(), unknown, "committed histories record changes the ledger does not list");
  }

  @Test
  void aChangeIsNeverOlderThanTheReleaseThatRecordsItOrNewerThanThisOne() {
    for (Change c : Change.values()) {
      assertTrue(c.release().compareTo(Compatibility.RELEASE) <= 0, c.id() + " added after this release");
      for (String dir : c.histories()) {
        String recordedBy = Compatibility.HISTORIES.stream().filter(h -> h.dir().equals(dir)).findFirst()
            .orElseThrow().release();
        assertTrue(recordedBy.compareTo(c.release()) >= 0,
            c.id() + " (added in " + c.release() + ") recorded by " + dir + " of release " + recordedBy);
      }
    }
  }

  @Test
  void theMarkdownHasARowForEveryChangeHistoryAndOldName() {
    String md = Compatibility.markdown();
    for (Change c : Change.values()) {
      assertTrue(md.contains("| `" + c.id() + "` | " + c.release() + " |"), c.id());
    }
    for (History h : Compatibility.HISTORIES) {
      assertTrue(md.contains("| `" + h.dir() + "/` | " + h.release() + " |"), h.dir());
    }
    for (var n : Compatibility.LEGACY_NAMES) {
      assertTrue(md.contains("| `" + n.old() + "` | " + n.kind().words() + " | `" + n.current() + "` | " + n.where()),
          n.toString());
    }
  }

  /**
   * A JSON name that differs from its record component's, and the new name read beside it:
   * {@code @JsonProperty("old") @JsonAlias("new") Type current}.
   */
  private static final Pattern RENAMED = Pattern.compile(
      "@JsonProperty\\(\"(\\w+)\"\\)\\s+(?:@JsonAlias\\(\"(\\w+)\"\\)\\s+)?[\\w.<>]+\\s+(\\w+)\\s*[,)]");

  @Test
  void everyOldJsonNameTheWorkflowRecordsCarryIsInTheLedgerAndViceVersa() throws IOException {
    TreeSet<String> inCode = new TreeSet<>();
    int aliases = 0;
    for (var e : sources().entrySet()) {
      Matcher m = RENAMED.matcher(e.getValue());
      while (m.find()) {
        if (!m.group(1).equals(m.group(3))) {
          inCode.add(m.group(1) + " -> " + m.group(3) + (m.group(2) == null ? "" : ", reads " + m.group(2)));
        }
      }
      Matcher alias = Pattern.compile("@JsonAlias\\(").matcher(e.getValue());
      while (alias.find()) {
        aliases++;
      }
    }
    TreeSet<String> ledger = new TreeSet<>();
    int newRead = 0;
    for (var n : Compatibility.LEGACY_NAMES) {
      if (n.kind() == Compatibility.Kind.WIRE_JSON) {
        assertTrue(n.writesOld(), n + ": the records write their JSON names, old ones included");
        ledger.add(n.old() + " -> " + n.current() + (n.newReadSince() == null ? "" : ", reads " + n.current()));
        newRead += n.newReadSince() == null ? 0 : 1;
      }
    }
    assertEquals(ledger, inCode, "JSON names kept for older code: in the records and in Compatibility.LEGACY_NAMES");
    // Each alias in the workflow records is one of the ledger's (a row may stand for two records).
    assertTrue(aliases >= ledger.stream().filter(l -> l.contains(", reads")).count() && aliases <= newRead,
        aliases + " @JsonAlias in the workflow records, " + newRead + " ledger rows that read a new name");
  }

  private static final Pattern ASK = Pattern.compile("\\bChange\\.([A-Z_]+)\\.(applies|require)\\(\\)");

  /** A sunset change has no old path left: the code only requires it; a kept one is only asked. */
  @Test
  void aSunsetChangeIsRequiredAndAKeptOneAsked() throws IOException {
    List<String> wrong = new ArrayList<>();
    for (var e : sources().entrySet()) {
      Matcher m = ASK.matcher(e.getValue());
      while (m.find()) {
        boolean sunset = Change.valueOf(m.group(1)).sunsetIn() != null;
        if (sunset != m.group(2).equals("require")) {
          wrong.add(MAIN.relativize(e.getKey()) + ": " + m.group());
        }
      }
    }
    assertEquals(List.of(), wrong, "require() for a sunset change, applies() for a kept one");
  }

  /**
   * The sunset rule: a release drops the old paths only of changes added before the release it
   * upgrades from; the histories it no longer replays are those of older releases, replayed by the
   * builds up to the release before it.
   */
  @Test
  void theSunsetFollowsTheRule() {
    for (Change c : Change.values()) {
      if (c.sunsetIn() != null) {
        assertTrue(c.sunsetIn().compareTo(Compatibility.RELEASE) <= 0, c.id());
        assertTrue(c.release().compareTo(c.sunsetIn()) < 0, c.id() + " sunset in the release that added it");
        assertTrue(Compatibility.HISTORIES.stream().anyMatch(h -> h.release().compareTo(c.sunsetIn()) < 0
                && h.release().compareTo(c.release()) >= 0 && h.lastReplayedBy() == null)
                || Compatibility.HISTORIES.stream().noneMatch(h -> h.release().compareTo(c.release()) >= 0
                    && h.release().compareTo(c.sunsetIn()) < 0),
            c.id() + ": the histories of the release before its sunset must still be replayed");
      }
    }
    for (History h : Compatibility.HISTORIES) {
      if (h.lastReplayedBy() != null) {
        assertTrue(h.lastReplayedBy().compareTo(Compatibility.RELEASE) < 0
            && h.lastReplayedBy().compareTo(h.release()) >= 0, h.dir() + " replayed by " + h.lastReplayedBy());
        assertTrue(Arrays.stream(Change.values()).anyMatch(c -> c.sunsetIn() != null
            && c.release().compareTo(h.release()) > 0), h.dir() + " is not replayed, but no change it lacks was sunset");
      }
    }
  }
}
