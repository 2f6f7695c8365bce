package dev.colony.fault;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The integration tests' forks (failsafe, {@code colony.fork}) take turns around a {@link RunsAlone}
 * class: every IT class holds a shared lock on {@code target/it-turns.lock} while it runs, a
 * {@code RunsAlone} class an exclusive one. A class that waits for its exclusive lock first takes
 * {@code target/it-turnstile.lock}, which every class passes through before its shared lock: no
 * new class starts while it waits, so it runs as soon as the running ones are done. Registered for
 * every test class of this module (junit-platform.properties, extension autodetection); it does
 * nothing outside failsafe's forks (the unit tests, a class run from the IDE).
 */
public final class ForkTurns implements BeforeAllCallback, AfterAllCallback {
  private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(ForkTurns.class);

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    Class<?> test = context.getRequiredTestClass();
    if (System.getProperty("colony.fork", "").isEmpty() || !test.getSimpleName().endsWith("IT")) {
      return;
    }
    boolean alone = test.isAnnotationPresent(RunsAlone.class);
    Files.createDirectories(Path.of("target"));
    try (FileChannel turnstile = open("target/it-turnstile.lock"); FileLock passing = turnstile.lock()) {
      FileChannel turns = open("target/it-turns.lock");
      FileLock held = turns.lock(0, Long.MAX_VALUE, !alone);
      context.getStore(NS).put("lock", new Held(turns, held));
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    Held held = context.getStore(NS).remove("lock", Held.class);
    if (held != null) {
      held.lock().release();
      held.channel().close();
    }
  }

  private record Held(FileChannel channel, FileLock lock) {}

  private static FileChannel open(String file) throws IOException {
    return FileChannel.open(Path.of(file), StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
  }
}
