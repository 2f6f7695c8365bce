package dev.colony.cli;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;

/**
 * What the resident process and its thin clients share: where the process listens, which build it
 * is, and the wire between them.
 *
 * <p><b>Where.</b> One resident process per user and per build tree (the {@code colony.jar} it
 * runs), listening on a Unix socket in the user's runtime directory: {@code $COLONY_RUNTIME_DIR},
 * else {@code $XDG_RUNTIME_DIR/colony}, else {@code /tmp/colony-UID}. The directory must belong to
 * the user and be closed to everyone else (mode 0700), or nobody listens or connects there; the
 * process also checks each caller's user id on the socket itself ({@code SO_PEERCRED}). The
 * socket's name is {@code r-HASH.sock}, HASH the 64-bit FNV-1a of the jar's real path in hex.
 *
 * <p><b>Which build.</b> The jar's inode, size and modification time in nanoseconds,
 * {@code INO:SIZE:MTIME_NS}: a rebuild or a deploy of a new release changes it. A caller sends the
 * build it found; a process of another build answers {@link #STALE} and stops.
 *
 * <p><b>The wire.</b> Frames both ways: a type byte, a big-endian int length, the payload.
 * <ul>
 *   <li>client → process: {@link #REQUEST} (version, build, directory, codeset, whether stdout and
 *       stderr are terminals, the arguments, the environment; strings as int length + UTF-8, the
 *       arguments as the bytes the shell passed); {@link #STDIN} data and {@link #STDIN_END} once
 *       the process asked for them; {@link #CONTROL} ({@code status} or {@code stop}) instead of a
 *       request. Closing the connection cancels the command (Ctrl-C).
 *   <li>process → client: {@link #STDOUT} and {@link #STDERR} bytes, {@link #NEED_STDIN},
 *       {@link #EXIT} (an int), {@link #OWN_PROCESS} (nothing done: run it in a JVM of your own),
 *       {@link #STALE} (another build: the same, and this process stops), {@link #ANSWER} (to a
 *       control).
 * </ul>
 * The thin client is {@code bin/colony-fast}; the JVM side is {@link ResidentProcess}.
 */
final class Resident {
  static final int VERSION = 1;
  static final byte REQUEST = 'R';
  static final byte STDIN = 'I';
  static final byte STDIN_END = 'E';
  static final byte CONTROL = 'C';
  static final byte STDOUT = 'O';
  static final byte STDERR = 'e';
  static final byte NEED_STDIN = 'N';
  static final byte EXIT = 'X';
  static final byte OWN_PROCESS = 'F';
  static final byte STALE = 'S';
  static final byte ANSWER = 'A';
  /** The most a request may carry (arguments and environment): more is refused. */
  static final int MAX_REQUEST = 4 * 1024 * 1024;
  static final int MAX_FRAME = 1024 * 1024;
  /**
   * The commands the resident process runs: each one call or a few to Temporal, or none. Anything
   * else (dev, worker, run, console, mcp, start, upgrade, init, ...) runs in a JVM of its own.
   */
  static final Set<String> COMMANDS = Set.of("pause", "resume", "send", "stop", "clear", "abort", "approve", "deny",
      "status", "task", "merge", "validate", "help", "--help", "-h", "--version", "-V");

  private Resident() {}

  /** The runtime directory for {@code env} (not created). */
  static Path runtimeDir(Map<String, String> env, long uid) {
    String own = env.get("COLONY_RUNTIME_DIR");
    if (own != null && !own.isEmpty()) {
      return Path.of(own);
    }
    String xdg = env.get("XDG_RUNTIME_DIR");
    if (xdg != null && !xdg.isEmpty() && Path.of(xdg).isAbsolute() && Files.isDirectory(Path.of(xdg))) {
      return Path.of(xdg, "colony");
    }
    return Path.of(System.getProperty("java.io.tmpdir", "/tmp"), "colony-" + uid);
  }

  /** This process's user id. */
  static long uid() throws IOException {
    return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue();
  }

  /**
   * Creates {@code dir} (mode 0700) if missing; then checks it is a directory of this user's, closed
   * to everyone else. Returns null when fine, else what is wrong with it.
   */
  static String secureDir(Path dir, long uid) throws IOException {
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      Files.createDirectories(dir.getParent());
      try {
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } catch (java.nio.file.FileAlreadyExistsException raced) {
        // made by another process at the same moment: checked below like any other
      }
    }
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return dir + " is not a directory";
    }
    long owner = ((Number) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue();
    if (owner != uid) {
      return dir + " belongs to user " + owner + ", not to this user (" + uid + ")";
    }
    Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
    if (perms.stream().anyMatch(p -> p.name().startsWith("GROUP") || p.name().startsWith("OTHERS"))) {
      return dir + " is open to other users (mode " + PosixFilePermissions.toString(perms) + "; it must be rwx------)";
    }
    return null;
  }

  /** {@code r-HASH}: the name of the files of the resident process for {@code jar} (its real path). */
  static String name(Path jarRealPath) {
    long h = 0xcbf29ce484222325L;
    for (byte b : jarRealPath.toString().getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    return "r-" + String.format("%016x", h);
  }

  /** The build of {@code jar}: {@code INO:SIZE:MTIME_NS}; null when it cannot be read. */
  static String build(Path jar) {
    try {
      Map<String, Object> a = Files.readAttributes(jar, "unix:ino,size,lastModifiedTime");
      long nanos = ((java.nio.file.attribute.FileTime) a.get("lastModifiedTime")).to(java.util.concurrent.TimeUnit.NANOSECONDS);
      return a.get("ino") + ":" + a.get("size") + ":" + nanos;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** Opens a connection to the socket at {@code socket}. */
  static SocketChannel connect(Path socket) throws IOException {
    SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      ch.connect(UnixDomainSocketAddress.of(socket));
      return ch;
    } catch (IOException e) {
      ch.close();
      throw e;
    }
  }

  /** A frame read off the wire. */
  record Frame(byte type, byte[] payload) {}

  /** Reads one frame; null at the end of the stream before a frame began. */
  static Frame read(DataInputStream in, int max) throws IOException {
    int type = in.read();
    if (type < 0) {
      return null;
    }
    int length = in.readInt();
    if (length < 0 || length > max) {
      throw new IOException("a frame of " + length + " bytes (at most " + max + ")");
    }
    return new Frame((byte) type, in.readNBytes(length));
  }

  /** Writes frames to one connection, whole frames at a time, from any thread. */
  static final class Wire {
    private final SocketChannel channel;
    private volatile boolean broken;

    Wire(SocketChannel channel) {
      this.channel = channel;
    }

    synchronized void send(byte type, byte[] payload, int off, int len) throws IOException {
      if (broken) {
        throw new IOException("the caller is gone");
      }
      ByteBuffer head = ByteBuffer.allocate(5).put(type).putInt(len).flip();
      ByteBuffer body = ByteBuffer.wrap(payload, off, len);
      try {
        while (head.hasRemaining() || body.hasRemaining()) {
          channel.write(new ByteBuffer[] {head, body});
        }
      } catch (IOException e) {
        broken = true;
        throw e;
      }
    }

    void send(byte type, byte[] payload) throws IOException {
      send(type, payload, 0, payload.length);
    }

    void sendInt(byte type, int value) throws IOException {
      send(type, ByteBuffer.allocate(4).putInt(value).array());
    }
  }

  /** An output stream whose bytes go to the caller as frames of {@code type}. */
  static final class FrameStream extends OutputStream {
    private final Wire wire;
    private final byte type;
    private volatile boolean sent;

    FrameStream(Wire wire, byte type) {
      this.wire = wire;
      this.type = type;
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      for (int at = off; at < off + len; at += MAX_FRAME) {
        int n = Math.min(MAX_FRAME, off + len - at);
        sent = true;
        wire.send(type, b, at, n);
      }
    }

    /** Whether anything was written. */
    boolean sent() {
      return sent;
    }
  }

  /** Reads the strings of a request payload. */
  static final class Reader {
    private final ByteBuffer b;

    Reader(byte[] payload) {
      this.b = ByteBuffer.wrap(payload);
    }

    int integer() throws IOException {
      if (b.remaining() < 4) {
        throw new EOFException("the request ends early");
      }
      return b.getInt();
    }

    byte[] bytes() throws IOException {
      int n = integer();
      if (n < 0 || n > b.remaining()) {
        throw new EOFException("the request ends early");
      }
      byte[] out = new byte[n];
      b.get(out);
      return out;
    }

    String string() throws IOException {
      return new String(bytes(), StandardCharsets.UTF_8);
    }
  }

  /** Builds a request payload (the Java client of the wire: {@code colony daemon}, tests). */
  static final class Writer {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    Writer integer(int v) {
      out.writeBytes(ByteBuffer.allocate(4).putInt(v).array());
      return this;
    }

    Writer bytes(byte[] v) {
      integer(v.length);
      out.writeBytes(v);
      return this;
    }

    Writer string(String v) {
      return bytes(v.getBytes(StandardCharsets.UTF_8));
    }

    byte[] done() {
      return out.toByteArray();
    }
  }

  /** Sends a control word to the process at {@code socket}; returns its answer. */
  static String control(Path socket, String word) throws IOException {
    try (SocketChannel ch = connect(socket)) {
      new Wire(ch).send(CONTROL, word.getBytes(StandardCharsets.UTF_8));
      DataInputStream in = new DataInputStream(Channels.newInputStream(ch));
      Frame f = read(in, MAX_FRAME);
      if (f == null || f.type() != ANSWER) {
        throw new IOException("no answer from the resident process");
      }
      return new String(f.payload(), StandardCharsets.UTF_8);
    }
  }

  /** Reads standard input from the caller, asking for it at the first read. */
  static final class CallerInput extends InputStream {
    private final Wire wire;
    private final java.io.PipedInputStream pipe;
    private final java.io.PipedOutputStream feed;
    private boolean asked;

    CallerInput(Wire wire) throws IOException {
      this.wire = wire;
      this.pipe = new java.io.PipedInputStream(64 * 1024);
      this.feed = new java.io.PipedOutputStream(pipe);
    }

    /** What the caller sent (from the connection's reader thread). */
    void feed(byte[] data) throws IOException {
      feed.write(data);
      feed.flush(); // wakes a reader waiting for it
    }

    void end() throws IOException {
      feed.close();
    }

    private synchronized void ask() throws IOException {
      if (!asked) {
        asked = true;
        wire.send(NEED_STDIN, new byte[0]);
      }
    }

    @Override
    public int read() throws IOException {
      ask();
      return pipe.read();
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      ask();
      return pipe.read(b, off, len);
    }
  }
}
