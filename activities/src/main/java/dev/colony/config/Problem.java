package dev.colony.config;

/** One thing wrong with a colony directory: which file, which field, what. */
public record Problem(String file, String path, String message) {
  @Override
  public String toString() {
    return (path == null || path.isEmpty() ? "" : path + ": ") + message;
  }
}
