package dev.colony.ant;

import dev.colony.budget.CarriedSpend;
import dev.colony.spec.AntSpec;

/**
 * Input of one AntWorkflow run: the spec, and the memory carried over (null on first start).
 *
 * @param carried on a fresh start (no memory), what the ant's previous, stopped run spent: its cost
 *     ledger and budget windows, so a stop and a start neither lift a cap nor lose the costs; null
 *     when there was no previous run (and in runs recorded before it existed)
 */
public record AntRun(AntSpec spec, AntMemory memory, CarriedSpend carried) {
  public AntRun(AntSpec spec, AntMemory memory) {
    this(spec, memory, null);
  }
}
