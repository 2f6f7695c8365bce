package dev.colony.session.impl;

import dev.colony.engine.OverseerFeed;
import dev.colony.engine.SessionGuard;
import dev.colony.overseer.OverseerSpec;
import dev.colony.overseer.Turn;
import dev.colony.overseer.TurnReply;
import dev.colony.overseer.TurnReport;
import dev.colony.overseer.Whisper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a session's turns to its ant's workflow in batches (the {@code reportTurns} update) from
 * a thread of its own, so the engine never waits on Temporal. A batch leaves when it is as long
 * as the overseer's {@code eval_interval} (the workflow then evaluates and the answer carries
 * the verdict's whisper), at every turn while an evaluation is still running, when the agent
 * has been silent for {@code stall_after}, and at the end of the session. Whispers the answer
 * carries wait here until the engine's next turn takes them; their ids go back with the next
 * batch, so a whisper lost with a crashed worker is delivered again.
 *
 * <p>An ant without an overseer ({@code spec} null) reports its turns too, for the console's live
 * view (it reads the updates from the run's history): a batch leaves about {@link #PLAIN_EVERY_MILLIS}
 * after its first turn, or at {@link #PLAIN_BATCH} turns, and at the end of the session; it never
 * waits for an answer (the workflow records it without evaluating), and silence is not reported.
 */
public final class TurnReporter implements OverseerFeed {
  private static final Logger log = LoggerFactory.getLogger(TurnReporter.class);
  /** Without an overseer: how long a turn waits for others to join its batch. */
  static final long PLAIN_EVERY_MILLIS = 2_000;
  /** Without an overseer: a batch this long leaves at once. */
  static final int PLAIN_BATCH = 50;

  /** The one call to the workflow; tests replace it. */
  public interface Channel {
    /**
     * @param waitForVerdict false for the last batch: the session is ending and does not wait
     * @return the answer, or null when the workflow refused or did not answer
     */
    TurnReply send(TurnReport report, String updateId, boolean waitForVerdict);
  }

  private final Channel channel;
  private final int session;
  private final OverseerSpec spec;
  private final SessionGuard guard;
  private final UnaryOperator<String> redact;
  private final String idPrefix;
  private final LongSupplier clock;
  private final Thread thread;
  /** The session activity's attempt, sent with each report (the workflow keeps spend per attempt). */
  private final int attempt;

  private final Object lock = new Object();
  private final List<Turn> buffer = new ArrayList<>();
  private final List<String> acks = new ArrayList<>();
  private final Map<String, String> ready = new LinkedHashMap<>();
  private final java.util.Set<String> given = new java.util.HashSet<>();
  private boolean evaluating;
  private boolean closed;
  /** Told when whispers are ready, so an engine can give them without waiting for the agent's next turn. */
  private Runnable whisperListener;
  private long lastSignOfLifeMillis;
  private boolean silenceReported;
  /** When the oldest turn of the buffer came (plain mode's batching). */
  private long firstBufferedMillis;
  private int sequence;
  /** What the session spent so far, as the engine last said; whether the workflow has not heard it yet. */
  private double spentUsd;
  private boolean spendUnsent;
  /** How many times the reporter's thread found no batch due (see {@link #looks()}). */
  private volatile long looks;
  /** Before each log line: the session's {@code run=... session=... } ({@code SessionLog}). */
  private volatile String logPrefix = "";

  public TurnReporter(Channel channel, int session, OverseerSpec spec, SessionGuard guard,
      UnaryOperator<String> redact, String idPrefix, LongSupplier clock) {
    this(channel, session, 0, spec, guard, redact, idPrefix, clock);
  }

  /** @param attempt the session activity's attempt (its reports carry it with the spend) */
  public TurnReporter(Channel channel, int session, int attempt, OverseerSpec spec, SessionGuard guard,
      UnaryOperator<String> redact, String idPrefix, LongSupplier clock) {
    this.attempt = attempt;
    this.channel = channel;
    this.session = session;
    this.spec = spec;
    this.guard = guard;
    this.redact = redact;
    this.idPrefix = idPrefix;
    this.clock = clock;
    this.lastSignOfLifeMillis = clock.getAsLong();
    this.thread = new Thread(this::loop, "colony-turn-reporter");
    thread.setDaemon(true);
    thread.start();
  }

  /** Logs with {@code prefix} ({@code SessionLog.prefix}) before each line. */
  public TurnReporter loggingAs(String prefix) {
    this.logPrefix = prefix == null ? "" : prefix;
    return this;
  }

  @Override
  public void turn(Turn turn) {
    Turn t = new Turn(turn.kind(), turn.name(), redact.apply(turn.input()), redact.apply(turn.result()),
        turn.error()).bounded();
    synchronized (lock) {
      lastSignOfLifeMillis = clock.getAsLong();
      silenceReported = false;
      if (buffer.isEmpty()) {
        firstBufferedMillis = lastSignOfLifeMillis;
      }
      if (buffer.size() < TurnReport.MAX_TURNS) {
        buffer.add(t); // beyond that the workflow is far behind: the oldest unsent turns are enough
      }
      lock.notifyAll();
    }
  }

  @Override
  public void onWhisper(Runnable listener) {
    synchronized (lock) {
      whisperListener = listener;
    }
  }

  @Override
  public List<String> take() {
    synchronized (lock) {
      if (ready.isEmpty()) {
        return List.of();
      }
      List<String> out = new ArrayList<>(ready.size());
      for (Map.Entry<String, String> e : ready.entrySet()) {
        out.add(e.getValue());
        acks.add(e.getKey());
        given.add(e.getKey());
      }
      ready.clear();
      return out;
    }
  }

  @Override
  public void spent(double usdSoFar) {
    if (!(usdSoFar >= 0) || !Double.isFinite(usdSoFar) || usdSoFar > TurnReport.MAX_SPENT_USD) {
      return;
    }
    synchronized (lock) {
      if (usdSoFar == spentUsd) {
        return;
      }
      if (buffer.isEmpty() && !spendUnsent) {
        firstBufferedMillis = clock.getAsLong(); // plain mode: it leaves with the next batch, or alone
      }
      spentUsd = usdSoFar;
      spendUnsent = true;
      lock.notifyAll();
    }
  }

  @Override
  public void activity() {
    synchronized (lock) {
      lastSignOfLifeMillis = clock.getAsLong();
    }
  }

  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      lock.notifyAll();
    }
    try {
      thread.join(Duration.ofSeconds(70).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    TurnReport last;
    synchronized (lock) {
      if (buffer.isEmpty() && acks.isEmpty() && !spendUnsent) {
        return;
      }
      last = take(0, true);
    }
    if (send(last, false) == null && !last.turns().isEmpty() && last.spentUsd() > 0) {
      // Refused with its turns (a long history takes no more live turns): the spend goes alone.
      send(new TurnReport(session, List.of(), List.of(), 0, attempt, last.spentUsd()), false);
    }
  }

  /**
   * How many times the reporter's thread has looked whether a batch is due and found none: a
   * test that moves the clock waits for two more looks to know the reporter has seen the new time.
   */
  long looks() {
    return looks;
  }

  private void loop() {
    while (true) {
      TurnReport report;
      synchronized (lock) {
        while (!closed && !due()) {
          looks++;
          try {
            lock.wait(waitMillis());
          } catch (InterruptedException e) {
            return;
          }
        }
        if (closed) {
          return;
        }
        long silent = silence();
        if (silent > 0) {
          silenceReported = true;
        }
        report = take(silent, false);
      }
      if (send(report, spec != null) == null && spec == null && !report.turns().isEmpty() && report.spentUsd() > 0) {
        // Refused with its turns (a long history takes no more live turns): the spend goes alone.
        if (send(new TurnReport(session, List.of(), List.of(), 0, attempt, report.spentUsd()), false) != null) {
          synchronized (lock) {
            spendUnsent = spendUnsent && spentUsd != report.spentUsd();
          }
        }
      }
    }
  }

  /** Holding the lock: how long to wait before looking again (at most a second). */
  private long waitMillis() {
    if (spec == null && (!buffer.isEmpty() || spendUnsent)) {
      return Math.max(1, Math.min(1000, firstBufferedMillis + PLAIN_EVERY_MILLIS - clock.getAsLong()));
    }
    return 1000;
  }

  /** Holding the lock: whether a batch should leave now. */
  private boolean due() {
    if (spec == null) {
      return (!buffer.isEmpty() || spendUnsent) && (buffer.size() >= PLAIN_BATCH
          || clock.getAsLong() - firstBufferedMillis >= PLAIN_EVERY_MILLIS);
    }
    if (buffer.size() >= spec.evalInterval() || evaluating && !buffer.isEmpty()) {
      return true;
    }
    return silence() > 0;
  }

  /** Seconds of silence worth reporting, or 0. */
  private long silence() {
    if (spec == null || silenceReported || guard.busy()) {
      return 0;
    }
    long quiet = clock.getAsLong() - lastSignOfLifeMillis;
    return quiet >= spec.stallAfterSeconds() * 1000 ? quiet / 1000 : 0;
  }

  private TurnReport take(long silentSeconds, boolean last) {
    TurnReport r = new TurnReport(session, List.copyOf(buffer), List.copyOf(acks), silentSeconds, last, attempt,
        spentUsd);
    buffer.clear();
    acks.clear();
    spendUnsent = false;
    sequence++;
    return r;
  }

  /** Sends {@code report}; the answer, or null when it was refused or not delivered. */
  private TurnReply send(TurnReport report, boolean waitForVerdict) {
    TurnReply reply;
    try {
      reply = channel.send(report, idPrefix + "/" + sequence, waitForVerdict);
    } catch (RuntimeException e) {
      log.info("{}turn report for session {} not delivered: {}", logPrefix, session, e.toString());
      reply = null;
    }
    Runnable listener;
    synchronized (lock) {
      if (reply == null) {
        acks.addAll(0, report.delivered()); // try the acknowledgements again with the next batch
        evaluating = false;
        if (report.spentUsd() > 0 && report.spentUsd() == spentUsd && !spendUnsent) {
          spendUnsent = true; // and the spend, a batch interval from now
          if (buffer.isEmpty()) {
            firstBufferedMillis = clock.getAsLong();
          }
        }
        return null;
      }
      evaluating = reply.evaluating();
      for (Whisper w : reply.whispers()) {
        if (!given.contains(w.id())) {
          ready.putIfAbsent(w.id(), w.rendered());
        }
      }
      listener = ready.isEmpty() ? null : whisperListener;
    }
    if (listener != null) {
      try {
        listener.run();
      } catch (RuntimeException e) {
        log.info("{}whispers for session {} not given now: {}", logPrefix, session, e.toString());
      }
    }
    return reply;
  }
}
