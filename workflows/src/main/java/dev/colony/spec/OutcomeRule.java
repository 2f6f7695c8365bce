package dev.colony.spec;

import dev.colony.errorpolicy.Outcome;

/**
 * Maps a finished command to an outcome. A rule matches when every condition it sets holds:
 * {@code exitCode} equals the process exit code, {@code pattern} (a Java regex) is found in the
 * output. The first matching rule wins. A pattern may capture a rate-limit reset time with a
 * named group: {@code (?<resetsAt>\d+)} (epoch seconds) or {@code (?<retryAfter>\d+)} (seconds
 * from now).
 */
public record OutcomeRule(Integer exitCode, String pattern, Outcome outcome) {}
