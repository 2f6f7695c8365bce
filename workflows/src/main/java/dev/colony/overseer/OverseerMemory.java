package dev.colony.overseer;

import java.util.List;

/** The overseer's state carried over continue-as-new ({@code costUsd}: what its model calls cost so far). */
public record OverseerMemory(List<Turn> window, int sinceEval, List<Whisper> pending, long whisperSeq,
    int strikes, Pattern lastFlag, String lastReason, Pattern lastVerdict, int evaluations, int skipped,
    int whispers, int escalations, String lastError, boolean escalated, double costUsd) {
  public OverseerMemory {
    window = window == null ? List.of() : List.copyOf(window);
    pending = pending == null ? List.of() : List.copyOf(pending);
  }
}
