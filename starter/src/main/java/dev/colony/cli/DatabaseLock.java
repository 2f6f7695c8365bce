package dev.colony.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * One process per dev server database. {@code colony dev} and {@code colony server} hold an OS
 * lock on {@code FILE.lock}, beside the SQLite file, for as long as they run: a second one on the
 * same database used to start a second dev server on the same file (the two fought over shards and
 * refused signals), and with {@code --fresh} deleted the database under the first, which restarted
 * every ant from session 1 and lost the first colony's history for good. The lock file names its
 * holder (pid and port) for the refusal; the OS lets go of the lock when the process ends, by
 * {@code kill -9} too, so a lock file left behind never blocks.
 */
final class DatabaseLock {
  /** The locks this process holds: never released, they go with the process. */
  private static final List<FileLock> HELD = new ArrayList<>();

  private DatabaseLock() {}

  /** The lock file of {@code db}. */
  static Path of(Path db) {
    return Path.of(db.toAbsolutePath() + ".lock");
  }

  /**
   * Takes {@code db}'s lock for the life of this process, or refuses in one line naming its holder.
   *
   * @param port the Temporal port this process serves the database on (told to a second one)
   */
  static synchronized void hold(Path db, int port) {
    Path file = of(db);
    FileChannel channel;
    try {
      java.nio.file.Files.createDirectories(file.getParent());
      channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new UserError("cannot open " + file + ": " + e.getMessage());
    }
    try {
      FileLock lock = channel.tryLock();
      if (lock == null) {
        String holder = holder(channel);
        channel.close();
        throw new UserError(db.toAbsolutePath() + " is in use by another Colony process ("
            + (holder.isEmpty() ? "see " + file : holder) + "): stop it first, or use its Temporal"
            + (holder.contains("port ") ? " with --address localhost:" + holder.substring(holder.lastIndexOf("port ") + 5) : ""));
      }
      channel.truncate(0);
      channel.write(ByteBuffer.wrap(("pid " + ProcessHandle.current().pid() + ", Temporal on port " + port)
          .getBytes(StandardCharsets.UTF_8)), 0);
      channel.force(false);
      HELD.add(lock);
    } catch (IOException e) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // reported below
      }
      throw new UserError("cannot lock " + file + ": " + e.getMessage());
    }
  }

  private static String holder(FileChannel channel) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(200);
    channel.read(buf, 0);
    return new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8).strip();
  }
}
