package dev.colony.ant;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.colony.mailbox.Mailbox;
import java.util.List;

/**
 * The state an ant carries from one workflow run to the next across continue-as-new: the sum of
 * the memories of its parts, each part's {@code Memory} record owned by the part (what it keeps,
 * how it reads it back). Nothing an operator relies on may be missing: queued messages, counters,
 * pause state, a pending wait, the statistics, the mailbox, the budget spend, the host that holds
 * the workspace, the notices pushed for open needs, the console's card, the task it holds, its
 * side of the merge queue.
 *
 * <p>The JSON is flat, as it always was: the parts marked {@link JsonUnwrapped} write their
 * components at the top level under the names older code wrote (a memory written before the
 * parts owned their memories reads the same, and older code reads this one). A fact added to a
 * part is a component of that part's {@code Memory} and nothing here; it reads as empty (null,
 * zero, false) from a memory written before it. Two components never share a JSON name, nor one of
 * this record's own (the flat JSON has one namespace; {@code StatePartsTest} checks).
 */
public record AntMemory(
    @JsonUnwrapped AntState.Loop loop,
    @JsonUnwrapped PauseRequest.Memory pause,
    @JsonUnwrapped Mailbox.Memory mailbox,
    @JsonUnwrapped ChatSequence.Memory chat,
    @JsonUnwrapped SessionStats.Memory stats,
    @JsonUnwrapped Delivery.Memory delivery,
    @JsonUnwrapped IssueIntake.Memory issues,
    @JsonUnwrapped Conversation.Memory conversation,
    @JsonUnwrapped CardState.Memory card,
    @JsonUnwrapped TaskSlot.Memory taskSlot,
    // The budget's spend this day and month ({@code BudgetBook}).
    dev.colony.budget.Spend spend,
    // Spend and sessions per day ({@code CostLedger}).
    List<dev.colony.visibility.AntCard.DayCost> ledger,
    // The overseer's memory ({@code OverseerBook}); its JSON name is the old one, see the compatibility ledger.
    @JsonProperty("oversight") @JsonAlias("overseer") dev.colony.overseer.OverseerMemory overseer,
    // The notices pushed for needs still open ({@code Notifier}).
    List<NoticeState> notices,
    // The ant's side of its repository's merge queue ({@code MergeSlot}), a nested object.
    MergeSlot.Memory merge) {

  public AntMemory {
    ledger = ledger == null ? List.of() : List.copyOf(ledger);
    notices = notices == null ? List.of() : List.copyOf(notices);
  }
}
