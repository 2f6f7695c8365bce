package dev.colony.engine;

import dev.colony.overseer.Turn;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** An {@link OverseerFeed} for engine tests: records turns; a whisper becomes ready after a given turn. */
public final class RecordingOverseerFeed implements OverseerFeed {
  public final List<Turn> turns = new CopyOnWriteArrayList<>();
  public final List<String> taken = new CopyOnWriteArrayList<>();
  private final List<String> ready = new ArrayList<>();
  private final int afterTurns;
  private final String whisper;
  private boolean released;
  public volatile int activity;
  public volatile boolean closed;

  /** {@code whisper} is ready once {@code afterTurns} turns were reported. */
  public RecordingOverseerFeed(int afterTurns, String whisper) {
    this.afterTurns = afterTurns;
    this.whisper = whisper;
  }

  @Override
  public synchronized void turn(Turn turn) {
    turns.add(turn);
    if (!released && turns.size() >= afterTurns) {
      released = true;
      ready.add(whisper);
    }
  }

  @Override
  public synchronized List<String> take() {
    List<String> out = List.copyOf(ready);
    ready.clear();
    taken.addAll(out);
    return out;
  }

  @Override
  public void activity() {
    activity++;
  }

  @Override
  public void close() {
    closed = true;
  }
}
