package dev.colony.visibility;

import dev.colony.autonomy.PendingConfirmation;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import java.util.List;
import java.util.Map;

/**
 * What an ant shows of itself beyond its search attributes, kept in its memo under
 * {@link #MEMO_KEY}: everything the console (and any script) needs to draw the ant without a
 * worker. The workflow rewrites it when it changes; it is bounded (a few KB) whatever the ant did.
 * Text in it is printable and bounded; secret values never reach it (the worker's data converter
 * redacts every payload).
 *
 * @param version the card's layout ({@link #VERSION}); a reader skips cards newer than it knows
 * @param revision counts the card's rewrites in this ant's life (carried over continue-as-new)
 * @param state the lifecycle state, lower case (as {@code AntState})
 * @param stateSinceMillis when the ant entered {@code state}
 * @param doing what the ant does now, one line: "session 12 running", "backoff 2 of 5",
 *     "paused: billing error", "waiting for the next tick"
 * @param needsHuman why a human is needed, null when none: {@code confirmation}, {@code billing},
 *     {@code auth}, {@code budget}, {@code parked}, {@code escalated}
 * @param needsHumanSinceMillis since when a human is needed; null when none
 * @param needsHumanDetail the detail a human needs to answer (the error, the overseer's reason)
 * @param session the session running now or last begun; 0 before the first
 * @param sessionRunning whether a session runs now
 * @param sessionStartedMillis when the running (or last) session started; null before the first
 * @param sessionsToday sessions begun today in the budget's time zone
 * @param costTodayUsd spend today in the budget's time zone
 * @param costMonthUsd spend this calendar month
 * @param dailyBudgetUsd the daily cap; null when none
 * @param monthlyBudgetUsd the monthly cap; null when none
 * @param budgetZone the time zone of days and months
 * @param lastError the last failed session's outcome and detail, one bounded line; null when none
 * @param lastErrorMillis when it ended
 * @param ledger spend and sessions per day, oldest first, the last {@link #LEDGER_DAYS} days at most
 * @param recent the last sessions, oldest first, {@link #RECENT_SESSIONS} at most
 * @param confirmations dangerous tool calls waiting for a human, oldest first
 * @param queue the queued instructions, first to be taken first, {@link #QUEUE_SHOWN} at most
 * @param overseerCostUsd what the overseer's model calls cost in this ant's life
 * @param costDay the day ({@code 2026-11-25}, budget zone) that {@code sessionsToday} and
 *     {@code costTodayUsd} count, and whose month {@code costMonthUsd} counts: the last day the ant
 *     began a session or spent (the card never changes because time passes, so a reader whose
 *     today is later reads those as 0: see {@link #costOn}, {@link #sessionsOn}); null before any
 * @param taskId the task from the board the ant holds now ({@code k7m2qx}); null when none
 * @param taskTitle that task's title, one bounded line; null when none
 * @param sandbox the walls around its sessions in words (on; on, network open; off); null on older cards
 */
public record AntCard(
    int version,
    long revision,
    String state,
    long stateSinceMillis,
    String doing,
    String needsHuman,
    Long needsHumanSinceMillis,
    String needsHumanDetail,
    int session,
    boolean sessionRunning,
    Long sessionStartedMillis,
    int sessionsToday,
    double costTodayUsd,
    double costMonthUsd,
    Double dailyBudgetUsd,
    Double monthlyBudgetUsd,
    String budgetZone,
    String lastError,
    Long lastErrorMillis,
    List<DayCost> ledger,
    List<SessionRecord> recent,
    List<PendingConfirmation> confirmations,
    List<QueuedMail> queue,
    double overseerCostUsd,
    String costDay,
    String taskId,
    String taskTitle,
    String sandbox) {

  /** Without the sandbox (cards written before sessions had walls). */
  public AntCard(int version, long revision, String state, long stateSinceMillis, String doing, String needsHuman,
      Long needsHumanSinceMillis, String needsHumanDetail, int session, boolean sessionRunning,
      Long sessionStartedMillis, int sessionsToday, double costTodayUsd, double costMonthUsd, Double dailyBudgetUsd,
      Double monthlyBudgetUsd, String budgetZone, String lastError, Long lastErrorMillis, List<DayCost> ledger,
      List<SessionRecord> recent, List<PendingConfirmation> confirmations, List<QueuedMail> queue,
      double overseerCostUsd, String costDay, String taskId, String taskTitle) {
    this(version, revision, state, stateSinceMillis, doing, needsHuman, needsHumanSinceMillis, needsHumanDetail,
        session, sessionRunning, sessionStartedMillis, sessionsToday, costTodayUsd, costMonthUsd, dailyBudgetUsd,
        monthlyBudgetUsd, budgetZone, lastError, lastErrorMillis, ledger, recent, confirmations, queue,
        overseerCostUsd, costDay, taskId, taskTitle, null);
  }

  /** Without the task (cards written before the task board). */
  public AntCard(int version, long revision, String state, long stateSinceMillis, String doing, String needsHuman,
      Long needsHumanSinceMillis, String needsHumanDetail, int session, boolean sessionRunning,
      Long sessionStartedMillis, int sessionsToday, double costTodayUsd, double costMonthUsd, Double dailyBudgetUsd,
      Double monthlyBudgetUsd, String budgetZone, String lastError, Long lastErrorMillis, List<DayCost> ledger,
      List<SessionRecord> recent, List<PendingConfirmation> confirmations, List<QueuedMail> queue,
      double overseerCostUsd, String costDay) {
    this(version, revision, state, stateSinceMillis, doing, needsHuman, needsHumanSinceMillis, needsHumanDetail,
        session, sessionRunning, sessionStartedMillis, sessionsToday, costTodayUsd, costMonthUsd, dailyBudgetUsd,
        monthlyBudgetUsd, budgetZone, lastError, lastErrorMillis, ledger, recent, confirmations, queue,
        overseerCostUsd, costDay, null, null);
  }

  public static final String MEMO_KEY = "card";
  public static final int VERSION = 1;
  public static final int LEDGER_DAYS = 35;
  public static final int RECENT_SESSIONS = 20;
  public static final int QUEUE_SHOWN = 20;
  /** Characters of a queued instruction shown. */
  public static final int QUEUE_TEXT_CHARS = 200;
  /** Confirmations shown at most (the oldest first). */
  public static final int CONFIRMATIONS_SHOWN = 20;
  /** Characters of {@code doing}, {@code needsHumanDetail}, {@code lastError} and a session's summary. */
  public static final int LINE_CHARS = 200;

  public AntCard {
    ledger = ledger == null ? List.of() : List.copyOf(ledger);
    recent = recent == null ? List.of() : List.copyOf(recent);
    confirmations = confirmations == null ? List.of() : List.copyOf(confirmations);
    queue = queue == null ? List.of() : List.copyOf(queue);
  }

  /** Without {@code costDay} (the draft's layout). */
  public AntCard(int version, long revision, String state, long stateSinceMillis, String doing, String needsHuman,
      Long needsHumanSinceMillis, String needsHumanDetail, int session, boolean sessionRunning,
      Long sessionStartedMillis, int sessionsToday, double costTodayUsd, double costMonthUsd, Double dailyBudgetUsd,
      Double monthlyBudgetUsd, String budgetZone, String lastError, Long lastErrorMillis, List<DayCost> ledger,
      List<SessionRecord> recent, List<PendingConfirmation> confirmations, List<QueuedMail> queue,
      double overseerCostUsd) {
    this(version, revision, state, stateSinceMillis, doing, needsHuman, needsHumanSinceMillis, needsHumanDetail,
        session, sessionRunning, sessionStartedMillis, sessionsToday, costTodayUsd, costMonthUsd, dailyBudgetUsd,
        monthlyBudgetUsd, budgetZone, lastError, lastErrorMillis, ledger, recent, confirmations, queue,
        overseerCostUsd, null);
  }

  /** The same card with another revision (the publisher compares cards without it). */
  public AntCard withRevision(long r) {
    return new AntCard(version, r, state, stateSinceMillis, doing, needsHuman, needsHumanSinceMillis,
        needsHumanDetail, session, sessionRunning, sessionStartedMillis, sessionsToday, costTodayUsd, costMonthUsd,
        dailyBudgetUsd, monthlyBudgetUsd, budgetZone, lastError, lastErrorMillis, ledger, recent, confirmations,
        queue, overseerCostUsd, costDay, taskId, taskTitle, sandbox);
  }

  /**
   * The card in a workflow's memo (a DescribeWorkflowExecution's or a ListWorkflowExecutions'
   * {@code memo.fields}), decoded with {@code converter} (the client's, or
   * {@code DataConverter.getDefaultInstance()}); null when there is none, it cannot be read, or
   * its layout is newer than this reader's.
   */
  public static AntCard fromMemo(Map<String, Payload> memo, DataConverter converter) {
    Payload p = memo == null ? null : memo.get(MEMO_KEY);
    if (p == null) {
      return null;
    }
    try {
      AntCard card = converter.fromPayload(p, AntCard.class, AntCard.class);
      return card == null || card.version() > VERSION ? null : card;
    } catch (RuntimeException unreadable) {
      return null;
    }
  }

  /** Spend on {@code day} (ISO, budget zone) as the ledger holds it; 0 for a day it does not. */
  /**
   * The card as a reader sees it on {@code today} (an ISO day in {@link #budgetZone}): when the card
   * counted an earlier day ({@link #costDay}), today's sessions and spend and this month's spend
   * come from the ledger instead (the card does not change because time passes).
   */
  public AntCard asOf(String today) {
    if (today == null || today.equals(costDay) || today.length() < 7) {
      return this;
    }
    String month = today.substring(0, 7);
    double monthUsd = 0;
    for (DayCost d : ledger) {
      if (d.day().startsWith(month)) {
        monthUsd += d.usd();
      }
    }
    return new AntCard(version, revision, state, stateSinceMillis, doing, needsHuman, needsHumanSinceMillis,
        needsHumanDetail, session, sessionRunning, sessionStartedMillis, sessionsOn(today), costOn(today), monthUsd,
        dailyBudgetUsd, monthlyBudgetUsd, budgetZone, lastError, lastErrorMillis, ledger, recent, confirmations,
        queue, overseerCostUsd, today, taskId, taskTitle, sandbox);
  }

  /** Today as an ISO day in the card's budget zone (UTC when the zone is unknown), at {@code nowMillis}. */
  public String today(long nowMillis) {
    java.time.ZoneId zone;
    try {
      zone = budgetZone == null ? java.time.ZoneOffset.UTC : java.time.ZoneId.of(budgetZone);
    } catch (java.time.DateTimeException e) {
      zone = java.time.ZoneOffset.UTC;
    }
    return java.time.Instant.ofEpochMilli(nowMillis).atZone(zone).toLocalDate().toString();
  }

  public double costOn(String day) {
    for (DayCost d : ledger) {
      if (d.day().equals(day)) {
        return d.usd();
      }
    }
    return 0;
  }

  /** Sessions begun on {@code day} (ISO, budget zone); 0 for a day the ledger does not hold. */
  public int sessionsOn(String day) {
    for (DayCost d : ledger) {
      if (d.day().equals(day)) {
        return d.sessions();
      }
    }
    return 0;
  }

  /** One day of the cost ledger: {@code day} is ISO ({@code 2026-11-25}) in the budget's zone. */
  public record DayCost(String day, double usd, int sessions) {}

  /**
   * One finished session.
   *
   * @param runId the workflow run that ran it (for a link to the Web UI)
   * @param outcome how it ended ({@code success}, {@code transient}, {@code rate_limit}, ...)
   * @param summary its detail, one bounded line
   */
  public record SessionRecord(int number, long startMillis, long endMillis, String outcome, String summary,
      int turns, long inputTokens, long outputTokens, double costUsd, String runId) {}

  /** A queued instruction: its first characters, urgency and sender (null: a human). */
  public record QueuedMail(String text, boolean urgent, String from) {}
}
