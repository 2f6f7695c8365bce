package dev.colony.ant;

import dev.colony.spec.AntSpec;

/** Input of one AntWorkflow run: the spec, and the memory carried over (null on first start). */
public record AntRun(AntSpec spec, AntMemory memory) {}
