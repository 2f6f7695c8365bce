package dev.colony.ant;

import java.util.Map;
import java.util.TreeMap;

/**
 * What the ant's sessions added up to, as the stats query shows it: outcomes by name, the last
 * outcome and its detail, turns, tokens and cost. Only grows, through the methods below.
 */
final class SessionStats {
  private final long startedAtMillis;
  private final TreeMap<String, Integer> byOutcome = new TreeMap<>();
  private String lastOutcome;
  private String lastDetail;
  private long turns;
  private double costUsd;
  private boolean costReported;
  private long inputTokens;
  private long outputTokens;

  SessionStats(long startedAtMillis) {
    this.startedAtMillis = startedAtMillis;
  }

  /** What it carries across continue-as-new (the JSON names of the ant's memory). */
  record Memory(String lastOutcome, String lastDetail, long startedAtMillis, Map<String, Integer> sessionsByOutcome,
      long turns, double costUsd, boolean costReported, long inputTokens, long outputTokens) {
    Memory {
      sessionsByOutcome = dev.colony.determinism.SortedCopies.of(sessionsByOutcome);
    }
  }

  Memory memory() {
    return new Memory(lastOutcome, lastDetail, startedAtMillis, byOutcome, turns, costUsd, costReported, inputTokens,
        outputTokens);
  }

  /** The statistics a run that continued as new carried over. */
  SessionStats(Memory m) {
    this(m.startedAtMillis());
    byOutcome.putAll(m.sessionsByOutcome());
    lastOutcome = m.lastOutcome();
    lastDetail = m.lastDetail();
    turns = m.turns();
    costUsd = m.costUsd();
    costReported = m.costReported();
    inputTokens = m.inputTokens();
    outputTokens = m.outputTokens();
  }

  /** A session ended with this outcome (or was interrupted: "aborted", "interrupted"). */
  void recordOutcome(String outcome, String detail) {
    lastOutcome = outcome;
    lastDetail = detail;
    byOutcome.merge(outcome, 1, Integer::sum);
  }

  /** The turns and tokens a session's engine reported. */
  void addUsage(long turns, long inputTokens, long outputTokens) {
    this.turns += turns;
    this.inputTokens += inputTokens;
    this.outputTokens += outputTokens;
  }

  /** Adds money spent; says whether it counted (positive and finite). */
  boolean addCost(double usd) {
    if (usd > 0 && Double.isFinite(usd)) {
      costUsd += usd;
      costReported = true;
      return true;
    }
    return false;
  }

  long startedAtMillis() {
    return startedAtMillis;
  }

  Map<String, Integer> sessionsByOutcome() {
    return byOutcome;
  }

  String lastOutcome() {
    return lastOutcome;
  }

  String lastDetail() {
    return lastDetail;
  }

  long turns() {
    return turns;
  }

  double costUsd() {
    return costUsd;
  }

  boolean costReported() {
    return costReported;
  }

  long inputTokens() {
    return inputTokens;
  }

  long outputTokens() {
    return outputTokens;
  }
}
