package dev.colony.spec;

/** Where the agent's own text (narration, answers) goes. */
public enum LmOutput { DISCORD, CONSOLE, BOTH }
