package dev.colony.ant;

import dev.colony.compat.Compatibility.Change;
import dev.colony.spec.AntSpec;
import dev.colony.visibility.AntCard;
import dev.colony.visibility.AntSearchAttributes;
import io.temporal.common.SearchAttributeUpdate;
import io.temporal.workflow.Async;
import io.temporal.workflow.Workflow;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes the ant's state to visibility (search attributes, memo, current details) whenever it
 * changes, only what changed, from a thread of its own: lists and the Web UI need no worker. The
 * console's card ({@link AntCard}, memo key {@code card}) is rewritten whenever it differs from the
 * last one written, with {@code AntUpdatedAt} set to the time of the write.
 */
final class VisibilityPublisher {

  private final AntState ant;
  /** What this run last wrote; null until the first write. */
  private AntVisibility published;
  /** Whether this run has begun writing the card (there is none to wait for before). */
  private boolean cards;
  /** The card this run last wrote; null until the first. */
  private AntCard card;

  VisibilityPublisher(AntState ant) {
    this.ant = ant;
  }

  void start() {
    Async.procedure(this::publish);
  }

  /** Everything the ant is has been written. */
  boolean upToDate() {
    return AntViews.visibility(ant).equals(published) && cardWritten();
  }

  private boolean cardWritten() {
    return !cards || card != null && AntViews.card(ant, card.revision()).equals(card);
  }

  private void publish() {
    Change.CONSOLE_CARD.require();
    cards = true;
    // The memo this run started with (set by `colony start`, or carried over).
    List<String> memoShown = Arrays.asList(
        (String) Workflow.getMemo(AntSearchAttributes.MEMO_DESCRIPTION, String.class),
        (String) Workflow.getMemo(AntSearchAttributes.MEMO_ENGINE, String.class));
    while (true) {
      Workflow.await(() -> !upToDate() || !memoShown.equals(memoValues()));
      AntVisibility now = AntViews.visibility(ant);
      AntCard nextCard = cardWritten() ? null : nextCard();
      List<SearchAttributeUpdate<?>> updates = new ArrayList<>();
      if (!now.equals(published)) {
        updates.addAll(now.changesSince(published));
      }
      if (nextCard != null) {
        updates.add(SearchAttributeUpdate.valueSet(AntSearchAttributes.UPDATED_AT,
            OffsetDateTime.ofInstant(Instant.ofEpochMilli(Workflow.currentTimeMillis()), ZoneOffset.UTC)));
      }
      if (!now.equals(published) || nextCard != null) { // as runs before the card did: even when empty
        Workflow.upsertTypedSearchAttributes(updates.toArray(new SearchAttributeUpdate<?>[0]));
      }
      if (!now.equals(published)) {
        Workflow.setCurrentDetails(now.statusLine());
        published = now;
      }
      List<String> memo = memoValues();
      Map<String, Object> memoChanges = new LinkedHashMap<>();
      if (!memoShown.equals(memo)) {
        memoChanges.putAll(AntSearchAttributes.memo(ant.spec()));
        memoShown.set(0, memo.get(0));
        memoShown.set(1, memo.get(1));
      }
      if (nextCard != null) {
        memoChanges.put(AntCard.MEMO_KEY, nextCard);
        card = nextCard;
      }
      if (!memoChanges.isEmpty()) {
        Workflow.upsertMemo(memoChanges);
      }
    }
  }

  /** The card to write now: the state and the need observed at this moment, the next revision. */
  private AntCard nextCard() {
    long now = Workflow.currentTimeMillis();
    ant.card.observeState(ant.phase().state().configName(), now);
    ant.card.observeNeed(AntViews.needsHuman(ant), now);
    return AntViews.card(ant, ant.card.nextRevision());
  }

  private List<String> memoValues() {
    return Arrays.asList(ant.spec().description(), ant.spec().engine().configName());
  }
}
