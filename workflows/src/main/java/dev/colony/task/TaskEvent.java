package dev.colony.task;

/** One line of a task's log as the board's drawer shows it: "moved to In Review by alpha". */
public record TaskEvent(long atMillis, String by, String what) {}
