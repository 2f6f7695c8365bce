package dev.colony.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine;

/**
 * {@code colony --help}, rendered once by the build (this main, in the process-classes phase)
 * into the jar. Printing it takes no command tree: picocli's reflection over all twenty commands
 * was most of the time {@code colony --help} took.
 */
public final class HelpText {
  static final String RESOURCE = "colony-help.txt";

  private HelpText() {}

  /** The build's rendering, or null when this jar has none (an IDE run). */
  static String prebuilt() {
    try (InputStream in = HelpText.class.getResourceAsStream(RESOURCE)) {
      return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return null;
    }
  }

  /** What {@code colony --help} prints, without colours. */
  static String render() {
    return ColonyCli.commandLine().getUsageMessage(CommandLine.Help.Ansi.OFF);
  }

  /** Writes the rendering to {@code args[0]}. */
  public static void main(String[] args) throws IOException {
    Path out = Path.of(args[0]);
    Files.createDirectories(out.getParent());
    Files.writeString(out, render());
  }
}
