package dev.colony.client;

import dev.colony.overseer.Turn;
import dev.colony.task.TaskCard;
import dev.colony.visibility.AntCard;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Where every surface (the console, the MCP servers, ...) reads the colony and sends its actions:
 * Temporal ({@link TemporalColonySource}) or, in tests, a fake ({@code FakeSource} in this module's
 * test-jar). Every method may fail with {@link SourceException} (Temporal refused or did not
 * answer); none keeps state a surface relies on.
 */
public interface ColonySource {
  /** The colony this source shows. */
  String colony();

  /** The Temporal namespace (for the header; "" for a fake). */
  String namespace();

  /** The header's counts. */
  Counts counts();

  /** Every ant of the colony matching {@code filter}, sorted by name (at most about 2,000). */
  List<Row> list(Filter filter);

  /**
   * Every ant of the colony for the costs (the console's page, the MCP tool), running or stopped, the newest run of each, sorted
   * by name, however many: a stopped ant's spend still counts in the colony's. This default is
   * {@link #list}{@code (ALL)}.
   */
  default List<Row> costRows() {
    return list(Filter.ALL);
  }

  /**
   * How many running ants are in each of {@code states} (values of the {@code AntState} search
   * attribute, {@code running}, {@code paused}, ...), every state given answered, zeros included.
   * This default counts {@link #list}{@code (ALL)}'s running rows; on Temporal it is one visibility
   * count per state.
   */
  default Map<String, Long> countByState(Collection<String> states) {
    Map<String, Long> out = new java.util.LinkedHashMap<>();
    states.forEach(s -> out.put(s, 0L));
    for (Row r : list(Filter.ALL)) {
      if (r.running() && r.state() != null && out.containsKey(r.state())) {
        out.merge(r.state(), 1L, Long::sum);
      }
    }
    return out;
  }

  /**
   * The instructions queued in the running ants' mailboxes, summed ({@code AntQueue}). This
   * default sums {@link #list}{@code (ALL)}'s running rows; on Temporal only the ants with a
   * message queued are listed.
   */
  default long queuedMessages() {
    return list(Filter.ALL).stream().filter(Row::running).mapToLong(Row::queue).sum();
  }

  /** One page of the overview: its rows, the next page's token (null: the last page), how many match. */
  record Page(List<Row> rows, String next, long total) {}

  /**
   * One page of ants matching {@code filter} and {@code q} (a part of the name), sorted by name:
   * {@code token} is null for the first page, else a {@link Page#next} of an earlier answer. This
   * default reads them all ({@link #list}); a source for large colonies pages in the store.
   */
  default Page page(Filter filter, String q, int size, String token) {
    List<Row> rows = list(filter);
    if (q != null && !q.isBlank()) {
      String needle = q.strip().toLowerCase(java.util.Locale.ROOT);
      rows = rows.stream().filter(x -> x.name().toLowerCase(java.util.Locale.ROOT).contains(needle)).toList();
    }
    int from = 0;
    if (token != null && token.matches("[0-9]{1,9}")) {
      from = Integer.parseInt(token);
    } else if (token != null) {
      throw new IllegalArgumentException("page is not a page token this source gave");
    }
    int to = Math.min(rows.size(), from + size);
    return new Page(rows.subList(Math.min(from, to), to), to < rows.size() ? String.valueOf(to) : null, rows.size());
  }

  /** One page of the ants changed in a window: its rows, the next page's token (null: the last page). */
  record Changes(List<Row> rows, String next) {}

  /**
   * One page of the ants whose card changed at or after {@code sinceMillis} (search attribute
   * {@code AntUpdatedAt}), stopped ones included, so the poller can push them: {@code token} is
   * null for the first page, else the {@link Changes#next} of the page before, for the same
   * {@code sinceMillis}. The pages come in the store's order, not by time: the poller reads every
   * page of a window before it moves its cursor, however many ants changed.
   */
  Changes changedSince(long sinceMillis, String token);

  /**
   * Of {@code names}, the ants whose workflow runs: an In Progress task whose worker is not one of
   * them shows "ant gone" on the board. This default reads every running ant ({@link #list}).
   */
  default Set<String> running(Collection<String> names) {
    if (names.isEmpty()) {
      return Set.of();
    }
    Set<String> wanted = Set.copyOf(names);
    return list(Filter.ALL).stream().filter(Row::running).map(Row::name).filter(wanted::contains)
        .collect(Collectors.toUnmodifiableSet());
  }

  /**
   * The colony's tasks whose card changed at or after {@code sinceMillis} (search attribute
   * {@code TaskUpdatedAt}), for the board's live view; null when this source cannot ask (the live
   * view then asks the board itself).
   */
  default List<TaskCard> tasksChangedSince(long sinceMillis) {
    return null;
  }

  /** The colony's merge queues (the Merge page, docs/console.md); null when this source has none. */
  default MergeSource merges() {
    return null;
  }

  /** {@link #merges()}, deciding as the surface {@code via} (e.g. {@code mcp}); by default the same. */
  default MergeSource merges(String via) {
    return merges();
  }

  /** One ant, or null when no ant of that name runs or ran. */
  Detail ant(String name);

  /** The ant's spec as its run loaded it (the run's input), or null when unknown. */
  Object config(String name);

  /** The turns of the running (or last) session of the ant's current run. */
  Live live(String name);

  /**
   * {@link #live(String)} of the run {@code detail} describes ({@link #ant} just read it): a source
   * that can reads that run's history without reading the ant again. By default, {@code live(name)}.
   */
  default Live live(String name, Detail detail) {
    return live(name);
  }

  /**
   * Waits up to {@code maxWait} for new turns after {@code cursor} (null: from the start of the
   * current run, returned at once). Follows continue-as-new.
   */
  TurnBatch waitTurns(String name, String cursor, Duration maxWait) throws InterruptedException;

  /** The supervision view: the colony workflow's card, else its queries, else not available. */
  Supervision supervision();

  /**
   * Sends {@code verb} (read by {@link Verbs}, which refuses what cannot be sent) to the ant as
   * {@code who} (the surface and the person, recorded in the ant's history); returns what was done.
   * Throws {@link java.util.NoSuchElementException} when no such ant runs.
   */
  String act(String name, AntVerb verb, Actor who);

  /** Calls made to Temporal since the start (the benchmark's measure). */
  long calls();

  /** The same by RPC name ({@code ListWorkflowExecutions}, ...); empty when not kept. */
  default Map<String, Long> callsByMethod() {
    return Map.of();
  }

  /** The filters of the list. */
  enum Filter {
    ALL, NEED_YOU, WORKING, WAITING, PAUSED, PARKED;

    /** {@code AntState} values of a working ant (a session is being prepared, runs or ends). */
    public static final List<String> WORKING_STATES = List.of("building_prompt", "spawning", "running", "interrupting",
        "session_complete");
    /** {@code AntState} values of a waiting ant (between sessions). */
    public static final List<String> WAITING_STATES = List.of("initializing", "cooling_down", "waiting");


    public static Filter parse(String s) {
      if (s == null || s.isEmpty() || s.equals("all")) {
        return ALL;
      }
      return switch (s) {
        case "needYou" -> NEED_YOU;
        case "working" -> WORKING;
        case "waiting" -> WAITING;
        case "paused" -> PAUSED;
        case "parked" -> PARKED;
        default -> throw new IllegalArgumentException("unknown filter '" + s + "' (all, needYou, working, waiting, paused, parked)");
      };
    }
  }

  /** The header's counts of running ants. */
  record Counts(long total, long needYou, long working, long waiting, long paused, long parked) {}

  /**
   * One ant as the list shows it: its search attributes and card.
   *
   * @param running whether its workflow runs (a stopped ant is listed by {@link #changedSince} only)
   * @param updatedMillis its {@code AntUpdatedAt}, 0 when unset
   */
  record Row(String name, String state, boolean paused, String pauseReason, long sessions, long errors,
      long queue, Long nextWake, String host, boolean needsHuman, String lastOutcome, AntCard card,
      boolean running, long updatedMillis) {

    /**
     * The surfaces' row of {@code r} (the client's reading of an ant's visibility): a stopped ant's
     * state is {@code stopped}, and it needs no human; a state not published yet is null.
     */
    public static Row of(AntRow r, AntCard card) {
      String state = !r.running() ? "stopped" : AntRow.UNKNOWN.equals(r.state()) ? null : r.state();
      return new Row(r.ant(), state, r.paused(), r.pauseReason(), r.sessions(), r.errors(), r.queue(),
          r.nextWake() == null ? null : r.nextWake().toEpochMilli(), r.host(), r.running() && r.needsHuman(),
          r.lastOutcome(), card, r.running(), r.updatedMillis());
    }

    /** What tells one version of the row from the next: the card's revision, else the row itself. */
    public String fingerprint() {
      return card != null ? "r" + card.revision() + "/" + state + "/" + running : toString();
    }
  }

  /** One ant in full. */
  record Detail(Row row, String workflowId, String runId, String webUiUrl, String description, String engine) {}

  /** The turns of one session. */
  record Live(int session, boolean running, List<Turn> turns) {}

  /**
   * New turns: {@code cursor} to wait from next; {@code session} of the last report; {@code reset}
   * when the run changed (continue-as-new) and the turns start afresh; {@code changed} when anything
   * happened to the ant (any new event: its row may have changed too).
   */
  record TurnBatch(String cursor, int session, List<Turn> turns, boolean reset, boolean changed) {}

  /** The supervision page. */
  record Supervision(boolean available, List<Map<String, Object>> groups, List<Object> events, String note) {}


  /** Temporal refused or did not answer. */
  final class SourceException extends RuntimeException {
    public SourceException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
