package dev.colony.client;

import dev.colony.text.Printable;

/**
 * Who steers an ant, and through which surface: recorded the same way on every surface, as the
 * identity of the signals in the ant's history ({@code via:name}, e.g. {@code console:Ada},
 * {@code Discord:dana}) and as the decider of a confirmation request ({@code name (via)}).
 *
 * @param name the person (printable, at most 64 characters)
 * @param via the surface ({@code cli}, {@code console}, {@code Discord}, {@code Slack}, {@code dev console})
 * @param asGiven the name is to be recorded as it is, without the surface ({@code colony approve --by NAME})
 */
public record Actor(String name, String via, boolean asGiven) {
  public Actor {
    name = name == null || name.isBlank() ? "someone" : Printable.line(name.strip(), 64);
    via = via == null || via.isBlank() ? "colony" : via;
  }

  public Actor(String name, String via) {
    this(name, via, false);
  }

  /** The decider of a confirmation request, as the ant's history and its chat post show it. */
  public String decidedBy() {
    return asGiven ? name : name + " (" + via + ")";
  }

  /** The identity of the client whose signals the ant's history records. */
  public String identity() {
    return via + ":" + name;
  }
}
