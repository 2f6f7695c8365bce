package dev.colony.cli;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Watches what the launcher's rule for "the CLI jar is out of date" looks at (bin/build.sh: the
 * parent pom, every module's pom and {@code src/main}) and says so at the first change: the
 * resident process then stops, and the next command goes through the launcher, which builds.
 */
final class SourceWatch implements AutoCloseable {
  private static final Pattern MODULE = Pattern.compile("<module>\\s*([^<\\s]+)\\s*</module>");
  private final WatchService watcher;
  private final Thread thread;

  private SourceWatch(WatchService watcher, Thread thread) {
    this.watcher = watcher;
    this.thread = thread;
  }

  /** Starts watching the build tree at {@code root}; {@code changed} runs once, at the first change. */
  static SourceWatch start(Path root, Runnable changed) throws IOException {
    WatchService watcher = FileSystems.getDefault().newWatchService();
    List<Path> poms = new ArrayList<>(List.of(root.resolve("pom.xml")));
    register(watcher, root);
    Matcher m = MODULE.matcher(Files.readString(root.resolve("pom.xml")));
    while (m.find()) {
      Path module = root.resolve(m.group(1));
      if (!Files.isDirectory(module)) {
        continue;
      }
      poms.add(module.resolve("pom.xml"));
      register(watcher, module);
      Path main = module.resolve("src/main");
      if (Files.isDirectory(main)) {
        try (Stream<Path> dirs = Files.walk(main)) {
          for (Path d : dirs.filter(Files::isDirectory).toList()) {
            register(watcher, d);
          }
        }
      }
    }
    Thread t = Thread.ofPlatform().daemon().name("colony-source-watch").start(() -> {
      try {
        while (true) {
          WatchKey key = watcher.take();
          Path dir = (Path) key.watchable();
          boolean source = dir.toString().contains("/src/main");
          for (var event : key.pollEvents()) {
            if (event.kind() == StandardWatchEventKinds.OVERFLOW
                || source || event.context() instanceof Path p && poms.contains(dir.resolve(p))) {
              changed.run();
              return;
            }
          }
          key.reset();
        }
      } catch (InterruptedException | java.nio.file.ClosedWatchServiceException e) {
        // closed
      }
    });
    return new SourceWatch(watcher, t);
  }

  private static void register(WatchService watcher, Path dir) throws IOException {
    dir.register(watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
        StandardWatchEventKinds.ENTRY_DELETE);
  }

  @Override
  public void close() throws IOException {
    watcher.close();
    thread.interrupt();
  }
}
