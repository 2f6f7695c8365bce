package dev.colony.supervision;

/** Sent by an ant to its colony's supervisor when it fails (parked by an error threshold, ...). */
public record AntFailure(String ant, String reason) {}
