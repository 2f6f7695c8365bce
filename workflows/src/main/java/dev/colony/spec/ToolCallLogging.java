package dev.colony.spec;

/** Which tool calls are narrated to the ant's channel after they run. */
public enum ToolCallLogging { OFF, IMPACTFUL, ALL }
