package dev.colony.chat.impl;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Remembers which post keys were delivered, in an append-only file shared by every worker on a
 * machine, so a post retried after a {@code kill -9} (or replayed by another worker) is not
 * shown twice. Delivery runs under an exclusive file lock: check, deliver, record.
 *
 * <p>A recorded key is written, not synced: the kernel keeps it for every other process, and it
 * survives a {@code kill -9} of the worker, which is what the journal is for. Only a crash of the
 * whole machine can lose the last keys, and then a post may show twice; an {@code fdatasync}
 * per post would cost every post a disk flush to prevent that (the dev server's SQLite makes the
 * same trade with {@code synchronous=normal}).
 *
 * <p>A key only matters while its post can still be retried: seconds to minutes. So the journal
 * is bounded: once it holds {@code limit} keys, the holder of the lock rewrites it in place with
 * the newest half, under a new generation number in its first line. Every process compares that
 * number with the one it read and rereads the whole file when it changed. A kill in the middle of
 * a rewrite loses none of the newest keys: the rewrite starts with them, and the part of the old
 * file it has not reached yet still holds the rest of them.
 */
public final class DeliveryJournal {
  /** Keys kept before the journal is compacted; a colony's posts of several days. */
  public static final int DEFAULT_LIMIT = 200_000;
  private static final String HEADER = "#generation ";

  private final Path file;
  private final int limit;
  private final Set<String> known = new HashSet<>();
  private long readUpTo;
  private long generation = -1;
  private int lines;

  public DeliveryJournal(Path file) {
    this(file, DEFAULT_LIMIT);
  }

  DeliveryJournal(Path file, int limit) {
    if (limit < 2) {
      throw new IllegalArgumentException("limit must be at least 2");
    }
    this.file = file;
    this.limit = limit;
  }

  /** What to do once the key is known to be new. */
  public interface Delivery {
    void run() throws Exception;
  }

  /** Runs {@code delivery} unless {@code key} was delivered before; returns whether it ran. */
  public synchronized boolean deliverOnce(String key, Delivery delivery) throws Exception {
    key = asLine(key);
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
      known.add(key);
      lines++;
      if (lines >= limit) {
        compact(ch);
      }
      readUpTo = ch.size();
      return true;
    }
  }

  /** A key as one journal line: line breaks escaped, never taken for the header. */
  static String asLine(String key) {
    String line = key.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r");
    return line.isEmpty() || line.startsWith("#") ? "\\" + line : line;
  }

  /** How many keys this process holds in memory (for tests and diagnostics). */
  synchronized int size() {
    return known.size();
  }

  /** Reads keys other processes appended since we last looked, or everything after a rewrite. */
  private void catchUp(FileChannel ch) throws IOException {
    long size = ch.size();
    long onDisk = generationOf(ch);
    if (onDisk != generation || size < readUpTo) {
      known.clear();
      lines = 0;
      readUpTo = 0;
      generation = onDisk;
    }
    if (size <= readUpTo) {
      return;
    }
    ByteBuffer buf = ByteBuffer.allocate((int) Math.min(Integer.MAX_VALUE - 8, size - readUpTo));
    ch.read(buf, readUpTo);
    int end = buf.position();
    byte[] bytes = buf.array();
    while (end > 0 && bytes[end - 1] != '\n') {
      end--; // a line still being written (or cut by a kill): read it next time
    }
    String text = new String(bytes, 0, end, StandardCharsets.UTF_8);
    for (String k : text.split("\n")) {
      if (!k.isEmpty() && !k.startsWith("#")) {
        known.add(k);
        lines++;
      }
    }
    readUpTo += end;
  }

  /** The generation in the file's first line; 0 for a journal never compacted. */
  private static long generationOf(FileChannel ch) throws IOException {
    ByteBuffer head = ByteBuffer.allocate(40);
    ch.read(head, 0);
    String first = new String(head.array(), 0, head.position(), StandardCharsets.UTF_8);
    if (!first.startsWith(HEADER) || first.indexOf('\n') < 0) {
      return 0;
    }
    try {
      return Long.parseLong(first.substring(HEADER.length(), first.indexOf('\n')));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** Rewrites the file with its newest half of keys, under the next generation. */
  private void compact(FileChannel ch) throws IOException {
    long size = ch.size();
    ByteBuffer buf = ByteBuffer.allocate((int) Math.min(Integer.MAX_VALUE - 8, size));
    ch.read(buf, 0);
    String[] all = new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8).split("\n");
    List<String> keys = new ArrayList<>();
    for (String k : all) {
      if (!k.isEmpty() && !k.startsWith("#")) {
        keys.add(k);
      }
    }
    List<String> keep = keys.subList(Math.max(0, keys.size() - limit / 2), keys.size());
    long next = generation + 1;
    StringBuilder out = new StringBuilder(HEADER).append(next).append('\n');
    keep.forEach(k -> out.append(k).append('\n'));
    byte[] bytes = out.toString().getBytes(StandardCharsets.UTF_8);
    ch.write(ByteBuffer.wrap(bytes), 0);
    ch.truncate(bytes.length);
    known.clear();
    known.addAll(keep);
    lines = keep.size();
    generation = next;
  }

  public Path file() {
    return file;
  }
}
