package dev.colony.task;

/** The task's answer to an ant's report: accepted, and the state it is in now; or why not. */
public record TaskReply(boolean accepted, TaskState state, String why) {}
