package dev.colony.chat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Set;

/**
 * Remembers which post keys were delivered, in an append-only file shared by every worker on a
 * machine, so a post retried after a {@code kill -9} (or replayed by another worker) is not
 * shown twice. Delivery runs under an exclusive file lock: check, deliver, record.
 */
public final class DeliveryJournal {
  private final Path file;
  private final Set<String> known = new HashSet<>();
  private long readUpTo;

  public DeliveryJournal(Path file) {
    this.file = file;
  }

  /** What to do once the key is known to be new. */
  public interface Delivery {
    void run() throws Exception;
  }

  /** Runs {@code delivery} unless {@code key} was delivered before; returns whether it ran. */
  public synchronized boolean deliverOnce(String key, Delivery delivery) throws Exception {
    Files.createDirectories(file.getParent());
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE); FileLock ignored = ch.lock()) {
      catchUp(ch);
      if (known.contains(key)) {
        return false;
      }
      delivery.run();
      byte[] line = (key + "\n").getBytes(StandardCharsets.UTF_8);
      ch.write(ByteBuffer.wrap(line), ch.size());
      ch.force(false);
      known.add(key);
      readUpTo = ch.size();
      return true;
    }
  }

  /** Reads keys other processes appended since we last looked. */
  private void catchUp(FileChannel ch) throws IOException {
    long size = ch.size();
    if (size <= readUpTo) {
      return;
    }
    ByteBuffer buf = ByteBuffer.allocate((int) Math.min(Integer.MAX_VALUE - 8, size - readUpTo));
    ch.read(buf, readUpTo);
    String text = new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8);
    int end = text.lastIndexOf('\n');
    if (end < 0) {
      return;
    }
    for (String k : text.substring(0, end).split("\n")) {
      if (!k.isEmpty()) {
        known.add(k);
      }
    }
    readUpTo += text.substring(0, end + 1).getBytes(StandardCharsets.UTF_8).length;
  }

  public Path file() {
    return file;
  }

}
