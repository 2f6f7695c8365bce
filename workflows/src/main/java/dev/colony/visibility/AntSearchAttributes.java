package dev.colony.visibility;

import io.temporal.common.SearchAttributeKey;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * The search attributes every ant keeps up to date in Temporal visibility. Their names are public
 * API: {@code colony status}, the Web UI and {@code temporal workflow list --query} read them
 * without a worker, e.g. {@code AntState = 'paused'} or {@code AntNeedsHuman = true}.
 */
public final class AntSearchAttributes {
  private AntSearchAttributes() {}

  public static final SearchAttributeKey<String> COLONY = SearchAttributeKey.forKeyword("ColonyName");
  public static final SearchAttributeKey<String> ANT = SearchAttributeKey.forKeyword("AntName");
  /** The lifecycle state as {@code status} reports it, lower case: {@code running}, {@code paused}, ... */
  public static final SearchAttributeKey<String> STATE = SearchAttributeKey.forKeyword("AntState");
  public static final SearchAttributeKey<Boolean> PAUSED = SearchAttributeKey.forBoolean("AntPaused");
  /** {@code operator}, {@code billing}, {@code auth} or {@code budget}; unset when not paused. */
  public static final SearchAttributeKey<String> PAUSE_REASON = SearchAttributeKey.forKeyword("AntPauseReason");
  public static final SearchAttributeKey<Long> SESSIONS = SearchAttributeKey.forLong("AntSessions");
  /** Consecutive failed sessions (the backoff counter). */
  public static final SearchAttributeKey<Long> ERRORS = SearchAttributeKey.forLong("AntErrors");
  /** Queued work instructions. */
  public static final SearchAttributeKey<Long> QUEUE = SearchAttributeKey.forLong("AntQueue");
  /** When the pending timer (backoff, rate limit, sleep, cron tick) fires; unset when none. */
  public static final SearchAttributeKey<OffsetDateTime> NEXT_WAKE = SearchAttributeKey.forOffsetDateTime("AntNextWake");
  /** A confirmation is waiting, or the ant is paused on billing, auth or budget. */
  public static final SearchAttributeKey<Boolean> NEEDS_HUMAN = SearchAttributeKey.forBoolean("AntNeedsHuman");
  /** How the last session ended: {@code success}, {@code transient}, {@code rate_limit}, ... */
  public static final SearchAttributeKey<String> LAST_OUTCOME = SearchAttributeKey.forKeyword("AntLastOutcome");
  /** What wakes the ant besides a human: its cron and zone, the repositories and labels it watches, ... */
  public static final SearchAttributeKey<String> WAKES_ON = SearchAttributeKey.forKeyword("AntWakesOn");

  /** The host whose worker holds the ant's workspace and runs its sessions; unset before its first session. */
  public static final SearchAttributeKey<String> HOST = SearchAttributeKey.forKeyword("AntHost");

  /**
   * When the ant last rewrote its card (the memo {@link AntCard#MEMO_KEY}): the console finds the
   * ants that changed since X with {@code AntUpdatedAt >= X}. Unset before the first card.
   */
  public static final SearchAttributeKey<OffsetDateTime> UPDATED_AT = SearchAttributeKey.forOffsetDateTime("AntUpdatedAt");

  /**
   * The task tags this ant takes ({@link dev.colony.task.Assignee#takerTags}: {@code take:ant:NAME},
   * and {@code take:pool:P} or {@code take:any} from its {@code tasks.takes}): a new task wakes
   * the ants with {@code AntTakes IN (its take tags)}.
   */
  public static final SearchAttributeKey<List<String>> TAKES = SearchAttributeKey.forKeywordList("AntTakes");

  /** Every key, in the order docs/operations.md documents them. */
  public static final List<SearchAttributeKey<?>> ALL = List.of(COLONY, ANT, STATE, PAUSED, PAUSE_REASON,
      SESSIONS, ERRORS, QUEUE, NEXT_WAKE, NEEDS_HUMAN, LAST_OUTCOME, WAKES_ON, HOST, UPDATED_AT, TAKES);

  /** Memo keys (set at start, refreshed when the spec changes); the card is {@link AntCard#MEMO_KEY}. */
  public static final String MEMO_DESCRIPTION = "description";
  public static final String MEMO_ENGINE = "engine";

  /**
   * The memo an ant carries: what the Web UI and {@code colony status} show beside its state
   * ({@code colony start} sets it, the ant's workflow keeps it).
   */
  public static java.util.Map<String, Object> memo(dev.colony.spec.AntSpec spec) {
    java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
    m.put(MEMO_DESCRIPTION, spec.description());
    m.put(MEMO_ENGINE, spec.engine().configName());
    return m;
  }
}
