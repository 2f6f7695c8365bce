package dev.colony.config;

/**
 * The generated parts of a hand-written document: the text between
 * {@code <!-- generated:NAME -->} and {@code <!-- /generated:NAME -->} belongs to a generator
 * ({@code docs/configuration.md} to {@link ConfigDoc}, {@code docs/cli.md} to the CLI's), the
 * prose around it to its authors.
 */
public final class GeneratedBlocks {
  private GeneratedBlocks() {}

  public static String begin(String name) {
    return "<!-- generated:" + name + " -->";
  }

  public static String end(String name) {
    return "<!-- /generated:" + name + " -->";
  }

  /** {@code doc} with the block {@code name} replaced by {@code body}; the markers must be there once each. */
  public static String splice(String doc, String name, String body) {
    String begin = begin(name);
    String end = end(name);
    int b = doc.indexOf(begin);
    int e = doc.indexOf(end);
    if (b < 0 || e < b || doc.indexOf(begin, b + 1) >= 0 || doc.indexOf(end, e + 1) >= 0) {
      throw new IllegalArgumentException("the document needs the lines " + begin + " and " + end
          + ", once each and in that order, around the generated block");
    }
    String inner = body.endsWith("\n") ? body : body + "\n";
    return doc.substring(0, b + begin.length()) + "\n" + inner + doc.substring(e);
  }
}
