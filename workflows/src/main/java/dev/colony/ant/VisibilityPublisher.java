package dev.colony.ant;

import dev.colony.spec.AntSpec;
import dev.colony.visibility.AntSearchAttributes;
import io.temporal.common.SearchAttributeUpdate;
import io.temporal.workflow.Async;
import io.temporal.workflow.Workflow;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes the ant's state to visibility (search attributes, memo, current details) whenever it
 * changes, only what changed, from a thread of its own: lists and the Web UI need no worker.
 */
final class VisibilityPublisher {
  private final AntState ant;
  /** What this run last wrote; null until the first write. */
  private AntVisibility published;

  VisibilityPublisher(AntState ant) {
    this.ant = ant;
  }

  void start() {
    Async.procedure(this::publish);
  }

  /** Everything the ant is has been written. */
  boolean upToDate() {
    return AntViews.visibility(ant).equals(published);
  }

  /** The memo an ant carries: what the Web UI and {@code colony status} show beside its state. */
  static Map<String, Object> memo(AntSpec spec) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(AntSearchAttributes.MEMO_DESCRIPTION, spec.description());
    m.put(AntSearchAttributes.MEMO_ENGINE, spec.engine().configName());
    return m;
  }

  private void publish() {
    // The memo this run started with (set by `colony start`, or carried over).
    List<String> memoShown = Arrays.asList(
        (String) Workflow.getMemo(AntSearchAttributes.MEMO_DESCRIPTION, String.class),
        (String) Workflow.getMemo(AntSearchAttributes.MEMO_ENGINE, String.class));
    while (true) {
      Workflow.await(() -> !upToDate() || !memoShown.equals(memoValues()));
      AntVisibility now = AntViews.visibility(ant);
      if (!now.equals(published)) {
        Workflow.upsertTypedSearchAttributes(now.changesSince(published).toArray(new SearchAttributeUpdate<?>[0]));
        Workflow.setCurrentDetails(now.statusLine());
        published = now;
      }
      List<String> memo = memoValues();
      if (!memoShown.equals(memo)) {
        Workflow.upsertMemo(memo(ant.spec()));
        memoShown.set(0, memo.get(0));
        memoShown.set(1, memo.get(1));
      }
    }
  }

  private List<String> memoValues() {
    return Arrays.asList(ant.spec().description(), ant.spec().engine().configName());
  }
}
