package dev.colony.ant;

import static dev.colony.visibility.AntSearchAttributes.ANT;
import static dev.colony.visibility.AntSearchAttributes.COLONY;
import static dev.colony.visibility.AntSearchAttributes.ERRORS;
import static dev.colony.visibility.AntSearchAttributes.HOST;
import static dev.colony.visibility.AntSearchAttributes.LAST_OUTCOME;
import static dev.colony.visibility.AntSearchAttributes.NEEDS_HUMAN;
import static dev.colony.visibility.AntSearchAttributes.NEXT_WAKE;
import static dev.colony.visibility.AntSearchAttributes.PAUSED;
import static dev.colony.visibility.AntSearchAttributes.PAUSE_REASON;
import static dev.colony.visibility.AntSearchAttributes.QUEUE;
import static dev.colony.visibility.AntSearchAttributes.SESSIONS;
import static dev.colony.visibility.AntSearchAttributes.STATE;
import static dev.colony.visibility.AntSearchAttributes.TAKES;
import static dev.colony.visibility.AntSearchAttributes.WAKES_ON;

import dev.colony.errorpolicy.Outcome;
import io.temporal.common.SearchAttributeKey;
import io.temporal.common.SearchAttributeUpdate;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What an ant publishes to Temporal visibility: a value, so the workflow can tell when it changed
 * and upsert only the attributes that did.
 */
public record AntVisibility(
    String colony,
    String ant,
    Lifecycle state,
    boolean paused,
    String pauseReason,
    int sessions,
    int errors,
    int queue,
    Long nextWakeMillis,
    int confirmationsWaiting,
    String lastOutcome,
    String wakesOn,
    String host,
    List<String> takes) {

  /** Without {@code takes} (runs from before the task board publish no {@code AntTakes}). */
  public AntVisibility(String colony, String ant, Lifecycle state, boolean paused, String pauseReason, int sessions,
      int errors, int queue, Long nextWakeMillis, int confirmationsWaiting, String lastOutcome, String wakesOn,
      String host) {
    this(colony, ant, state, paused, pauseReason, sessions, errors, queue, nextWakeMillis, confirmationsWaiting,
        lastOutcome, wakesOn, host, null);
  }

  /** Without {@code host} (runs from before the host-affinity version publish none). */
  public AntVisibility(String colony, String ant, Lifecycle state, boolean paused, String pauseReason, int sessions,
      int errors, int queue, Long nextWakeMillis, int confirmationsWaiting, String lastOutcome, String wakesOn) {
    this(colony, ant, state, paused, pauseReason, sessions, errors, queue, nextWakeMillis, confirmationsWaiting,
        lastOutcome, wakesOn, null);
  }

  /** Without {@code wakesOn} (runs from before the wakes-on version publish none). */
  public AntVisibility(String colony, String ant, Lifecycle state, boolean paused, String pauseReason, int sessions,
      int errors, int queue, Long nextWakeMillis, int confirmationsWaiting, String lastOutcome) {
    this(colony, ant, state, paused, pauseReason, sessions, errors, queue, nextWakeMillis, confirmationsWaiting,
        lastOutcome, null, null);
  }

  /** Paused on a cause only a human can fix, or a dangerous action waits for one. */
  public boolean needsHuman() {
    return confirmationsWaiting > 0 || (paused && isBlockingReason(pauseReason));
  }

  static boolean isBlockingReason(String reason) {
    return Outcome.BILLING.configName().equals(reason) || Outcome.AUTH.configName().equals(reason)
        || Outcome.BUDGET.configName().equals(reason) || Outcome.SANDBOX.configName().equals(reason)
        || AntWorkflowImpl.PARKED_REASON.equals(reason);
  }

  public static String stateName(Lifecycle state) {
    return state.name().toLowerCase(Locale.ROOT);
  }

  /** The attributes that differ from {@code before} (all of them when {@code before} is null). */
  public List<SearchAttributeUpdate<?>> changesSince(AntVisibility before) {
    List<SearchAttributeUpdate<?>> out = new ArrayList<>();
    AntVisibility b = before;
    add(out, COLONY, colony, b == null ? null : b.colony, b == null);
    add(out, ANT, ant, b == null ? null : b.ant, b == null);
    add(out, STATE, stateName(state), b == null ? null : stateName(b.state), b == null);
    add(out, PAUSED, paused, b == null ? null : b.paused, b == null);
    add(out, PAUSE_REASON, paused ? pauseReason : null, b == null ? null : b.paused ? b.pauseReason : null, b == null);
    add(out, SESSIONS, (long) sessions, b == null ? null : (long) b.sessions, b == null);
    add(out, ERRORS, (long) errors, b == null ? null : (long) b.errors, b == null);
    add(out, QUEUE, (long) queue, b == null ? null : (long) b.queue, b == null);
    add(out, NEXT_WAKE, time(nextWakeMillis), b == null ? null : time(b.nextWakeMillis), b == null);
    add(out, NEEDS_HUMAN, needsHuman(), b == null ? null : b.needsHuman(), b == null);
    add(out, LAST_OUTCOME, lastOutcome, b == null ? null : b.lastOutcome, b == null);
    if (wakesOn != null || (b != null && b.wakesOn != null)) {
      add(out, WAKES_ON, wakesOn, b == null ? null : b.wakesOn, b == null);
    }
    if (host != null || (b != null && b.host != null)) {
      add(out, HOST, host, b == null ? null : b.host, b == null);
    }
    if (takes != null || (b != null && b.takes != null)) {
      add(out, TAKES, takes, b == null ? null : b.takes, b == null);
    }
    return out;
  }

  /** One line for the Web UI's "current details": what the ant does, as the chat would say it. */
  public String statusLine() {
    StringBuilder sb = new StringBuilder();
    sb.append("**").append(ant).append("** ").append(stateName(state));
    if (paused) {
      sb.append(" (paused: ").append(pauseReason).append(')');
    }
    sb.append(" · sessions ").append(sessions).append(" · errors ").append(errors)
        .append(" · queue ").append(queue);
    if (nextWakeMillis != null) {
      sb.append(" · next wake ").append(Instant.ofEpochMilli(nextWakeMillis));
    }
    if (lastOutcome != null) {
      sb.append(" · last ").append(lastOutcome);
    }
    if (confirmationsWaiting > 0) {
      sb.append(" · ⚙️ ").append(confirmationsWaiting).append(" waiting for approval");
    }
    if (wakesOn != null) {
      sb.append(" · wakes on ").append(wakesOn);
    }
    if (host != null) {
      sb.append(" · on ").append(host);
    }
    return sb.toString();
  }

  private static OffsetDateTime time(Long millis) {
    return millis == null ? null : OffsetDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC);
  }

  private static <T> void add(List<SearchAttributeUpdate<?>> out, SearchAttributeKey<T> key, T now, T before,
      boolean all) {
    if (!all && Objects.equals(now, before)) {
      return;
    }
    // A first publish unsets empty values too: a run that continued as new may have inherited them.
    out.add(now == null ? SearchAttributeUpdate.valueUnset(key) : SearchAttributeUpdate.valueSet(key, now));
  }
}
