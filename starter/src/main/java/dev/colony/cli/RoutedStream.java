package dev.colony.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * {@code System.out} and {@code System.err} of the resident process: what a thread running a
 * caller's command writes there (a library's log line, a warning) goes to that caller's streams,
 * as it would in a process of the caller's own; what any other thread writes goes to the resident
 * process's log.
 */
final class RoutedStream extends OutputStream {
  private static final ThreadLocal<PrintStream[]> ROUTE = new ThreadLocal<>();
  private final int which;
  private final PrintStream fallback;

  private RoutedStream(int which, PrintStream fallback) {
    this.which = which;
    this.fallback = fallback;
  }

  /** Makes {@code System.out} and {@code System.err} routed, to {@code log} when no command runs. */
  static void install(PrintStream log) {
    System.setOut(new PrintStream(new RoutedStream(0, log), true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(new RoutedStream(1, log), true, StandardCharsets.UTF_8));
  }

  /** From now on this thread's output is a command's: {@code out} and {@code err}. */
  static void route(PrintStream out, PrintStream err) {
    ROUTE.set(new PrintStream[] {out, err});
  }

  static void unroute() {
    ROUTE.remove();
  }

  private PrintStream target() {
    PrintStream[] r = ROUTE.get();
    return r == null ? fallback : r[which];
  }

  @Override
  public void write(int b) throws IOException {
    target().write(b);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    target().write(b, off, len);
  }

  @Override
  public void flush() {
    target().flush();
  }
}
