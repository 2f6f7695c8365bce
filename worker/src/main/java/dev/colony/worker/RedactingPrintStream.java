package dev.colony.worker;

import dev.colony.secrets.Secrets;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * A terminal stream that masks secrets line by line: log lines, console chat and everything else
 * a worker process prints. Text is held until its line ends (or the stream is flushed), so a
 * secret written in pieces is still seen whole.
 */
public final class RedactingPrintStream extends PrintStream {
  private static final int MAX_PENDING = 1 << 20;
  private final Secrets secrets;
  private final OutputStream target;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream();

  public RedactingPrintStream(OutputStream target, Secrets secrets) {
    super(target, true, StandardCharsets.UTF_8);
    this.target = target;
    this.secrets = secrets;
  }

  @Override
  public synchronized void write(int b) {
    line.write(b);
    if (b == '\n' || line.size() >= MAX_PENDING) {
      emit();
    }
  }

  @Override
  public synchronized void write(byte[] buf, int off, int len) {
    for (int i = off; i < off + len; i++) {
      line.write(buf[i]);
      if (buf[i] == '\n' || line.size() >= MAX_PENDING) {
        emit();
      }
    }
  }

  @Override
  public synchronized void flush() {
    emit();
    try {
      target.flush();
    } catch (java.io.IOException e) {
      setError();
    }
  }

  private void emit() {
    if (line.size() == 0) {
      return;
    }
    String text = line.toString(StandardCharsets.UTF_8);
    line.reset();
    try {
      target.write(secrets.redact(text).getBytes(StandardCharsets.UTF_8));
      if (text.endsWith("\n")) {
        target.flush();
      }
    } catch (java.io.IOException e) {
      setError();
    }
  }

  @Override
  public synchronized void close() {
    flush();
    super.close();
  }
}
