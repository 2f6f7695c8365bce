package dev.colony.client;

/** A verb refused by {@link Verbs}: the message is the one sentence every surface shows. */
public final class VerbRefused extends IllegalArgumentException {
  public VerbRefused(String message) {
    super(message);
  }
}
