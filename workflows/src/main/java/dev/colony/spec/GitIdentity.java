package dev.colony.spec;

/** The project owner's git identity, injected into every ant's instructions. */
public record GitIdentity(String userName, String userEmail) {}
