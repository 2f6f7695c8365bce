package dev.colony.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * Every command's and subcommand's help, as picocli renders it and as {@code colony X --help}
 * prints it (the one-shot command line {@code main} builds, and the build-rendered
 * {@code colony --help}), prints no picocli warning and nothing on standard error: a footer or
 * description with a bare {@code %} is a warning on the user's terminal.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class EveryHelpIsCleanTest {

  /** Runs {@code what} with {@code System.err} captured (picocli's tracer writes its warnings there). */
  private static <T> T capturingStderr(StringBuilder err, Supplier<T> what) {
    PrintStream old = System.err;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
    try {
      return what.get();
    } finally {
      System.setErr(old);
      err.append(buf.toString(StandardCharsets.UTF_8));
    }
  }

  /** Every command path below the root: [task], [task, add], ... */
  private static void paths(CommandLine cl, List<String> prefix, List<List<String>> out) {
    for (var e : cl.getSubcommands().entrySet()) {
      if (!e.getKey().equals(e.getValue().getCommandName())) {
        continue; // an alias
      }
      List<String> p = new ArrayList<>(prefix);
      p.add(e.getKey());
      out.add(p);
      paths(e.getValue(), p, out);
    }
  }

  @Test
  void everyUsageMessageIsRenderedWithoutAWarning() {
    List<List<String>> all = new ArrayList<>();
    paths(ColonyCli.commandLine(), List.of(), all);
    assertTrue(all.size() > 25, "the walk finds the commands and their subcommands: " + all);
    assertTrue(all.contains(List.of("task", "add")), all.toString());
    for (List<String> path : all) {
      CommandLine cl = ColonyCli.commandLine();
      for (String name : path) {
        cl = cl.getSubcommands().get(name);
      }
      CommandLine at = cl;
      StringBuilder err = new StringBuilder();
      String usage = capturingStderr(err, () -> at.getUsageMessage(CommandLine.Help.Ansi.OFF));
      assertEquals("", err.toString(), "picocli's usage of colony " + String.join(" ", path) + " warns");
      assertFalse(usage.contains("WARN"), usage);
    }
  }

  @Test
  void everyHelpAsTheCommandPrintsItHasNothingOnStderr() {
    List<List<String>> all = new ArrayList<>();
    paths(ColonyCli.commandLine(), List.of(), all);
    for (List<String> path : all) {
      if (path.get(0).equals("help")) {
        continue; // picocli's help command takes a command name, not --help
      }
      List<String> args = new ArrayList<>(path);
      args.add("--help");
      String[] argv = args.toArray(String[]::new);
      String line = "colony " + String.join(" ", argv);
      // The command line main builds for these arguments (a one-shot root for task, merge, status, ...).
      CommandLine cl = ColonyCli.commandLine(argv);
      StringWriter out = new StringWriter();
      StringWriter errOut = new StringWriter();
      cl.setOut(new PrintWriter(out, true));
      cl.setErr(new PrintWriter(errOut, true));
      StringBuilder stderr = new StringBuilder();
      int code = capturingStderr(stderr, () -> cl.execute(argv));
      assertEquals(0, code, line + ": " + errOut);
      assertEquals("", errOut.toString(), line + " writes to stderr");
      assertEquals("", stderr.toString(), line + " writes to System.err");
      assertTrue(out.toString().startsWith("Usage: colony " + String.join(" ", path)), line + ": " + out);
    }
  }

  @Test
  void taskAddShowsItsExampleWithThePercentSign() {
    StringBuilder stderr = new StringBuilder();
    String[] argv = {"task", "add", "--help"};
    CommandLine cl = ColonyCli.commandLine(argv);
    StringWriter out = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    assertEquals(0, (int) capturingStderr(stderr, () -> cl.execute(argv)));
    assertEquals("", stderr.toString());
    assertTrue(out.toString().contains("git log -1 --format=%B | colony task add"), out.toString());
  }

  @Test
  void theBuildRenderedHelpOfColonyIsClean() {
    StringBuilder err = new StringBuilder();
    String rendered = capturingStderr(err, HelpText::render);
    assertEquals("", err.toString(), "rendering colony --help warns");
    // The build renders the help into the jar in process-classes, before any test runs: a
    // missing rendering is a build that lost that step, not a case to skip.
    String prebuilt = HelpText.prebuilt();
    assertNotNull(prebuilt, "the build did not render colony --help into " + HelpText.RESOURCE);
    for (String help : List.of(rendered, prebuilt)) {
      assertFalse(help.contains("WARN") || help.contains("Could not format"), help);
    }
  }
}
