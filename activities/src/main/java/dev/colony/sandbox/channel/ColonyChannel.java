package dev.colony.sandbox.channel;

import dev.colony.mailbox.Mail;
import dev.colony.sandbox.channel.ChannelRules.Identity;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One session's channel to its colony: a Unix socket the worker serves in a directory of its own
 * (mode 0700, under the worker's temp directory, never inside a sandbox), bind-mounted into the
 * session's sandbox at {@link #SOCKET}. Whoever connects to it speaks for the ant, colony and
 * session the worker opened it for: identity comes from which socket, never from the request.
 * {@link ChannelRules} decides what a request may do; {@link Colony} does it.
 *
 * <p>Bounds: a request over {@link ChannelClient#MAX_REQUEST_BYTES}, not in the channel's format,
 * not UTF-8, or not complete within {@link #READ_WITHIN_MILLIS} gets one line and the connection
 * closed; at most {@link #CONNECTIONS} connections at once; a rate limit per session (a burst of
 * {@link #BURST}, then one request per {@link #REFILL_MILLIS}).
 *
 * <p>Every request refused (not allowed inside, refused by the colony, malformed, over a bound or
 * the rate) is counted ({@code colony_sandbox_refusals_total{kind="channel"}}, through the
 * {@code refusals} the worker gave); a request the colony failed to carry out is not a refusal.
 */
public final class ColonyChannel implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ColonyChannel.class);

  /** Where the channel is inside a sandbox: {@code $COLONY_CHANNEL}. */
  public static final String SOCKET = "/run/colony/colony.sock";
  /** The {@code colony} command inside: {@code $COLONY_BIN}. */
  public static final String BIN = "/run/colony/colony";
  /** Where the client's code is inside (a directory holding its class and its python twin). */
  public static final String CODE = "/run/colony/lib";

  static final long READ_WITHIN_MILLIS = 5_000;
  static final int CONNECTIONS = 4;
  static final int BURST = 20;
  static final long REFILL_MILLIS = 1_000;

  /** What the channel does for its ant: the worker's side, with the worker's powers. */
  public interface Colony {
    /** Delivers {@code mail} to the peer {@code to}; the line to print. */
    String send(String to, Mail mail) throws Refusal;

    /** The ant's own status, as text. */
    String status() throws Refusal;
  }

  /** What the colony refused or could not do: one line for the agent. */
  public static final class Refusal extends Exception {
    public Refusal(String line) {
      super(line, null, false, false);
    }
  }

  private final Identity who;
  private final Colony colony;
  private final Runnable refusals;
  private final Path dir;
  private final Path socket;
  private final Path client;
  private final Path code;
  private final Path python;
  private final ServerSocketChannel server;
  private final Semaphore open = new Semaphore(CONNECTIONS);
  private final ScheduledExecutorService deadlines;
  private final LongSupplier clock;
  private final Thread acceptor;
  private double tokens = BURST;
  private long refilledAt;
  private volatile boolean closed;

  private ColonyChannel(Identity who, Colony colony, LongSupplier clock, Runnable refusals, Path python)
      throws IOException {
    this.who = who;
    this.colony = colony;
    this.refusals = refusals;
    this.clock = clock;
    this.refilledAt = clock.getAsLong();
    // A short path (a socket's path is limited to 107 bytes), private to the worker's user.
    this.dir = Files.createTempDirectory("colony-channel-",
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    this.socket = dir.resolve("colony.sock");
    // The client's one class and its python twin, copied out of the worker's code: a JVM starts
    // faster on a small directory than on Colony's 120 MB jar, and the session sees nothing else of it.
    this.code = dir.resolve("lib");
    Path classFile = code.resolve(ChannelClient.class.getName().replace('.', '/') + ".class");
    Files.createDirectories(classFile.getParent());
    copy(ChannelClient.class.getSimpleName() + ".class", classFile);
    Path pythonFile = code.resolve(PythonClient.FILE);
    copy(PythonClient.FILE, pythonFile);
    // python3 when the sandbox can run it (milliseconds), else the JVM: decided now, the script fixed.
    this.python = python != null && PythonClient.problem(python, pythonFile) == null ? python : null;
    this.client = dir.resolve("colony");
    Files.writeString(client, script(CODE, this.python));
    Files.setPosixFilePermissions(client, PosixFilePermissions.fromString("r-xr-xr-x"));
    ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      s.bind(UnixDomainSocketAddress.of(socket), 128);
    } catch (IOException e) {
      s.close();
      delete(dir);
      throw e;
    }
    this.server = s;
    this.deadlines = Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().name("channel-deadline-" + who.ant()).factory());
    this.acceptor = Thread.ofVirtual().name("channel-" + who.colony() + "-" + who.ant()).start(this::accept);
  }

  /** Copies the client's file {@code name} (a resource beside {@link ChannelClient}) to {@code to}. */
  private void copy(String name, Path to) throws IOException {
    try (var in = ChannelClient.class.getResourceAsStream(name)) {
      if (in == null) {
        delete(dir);
        throw new IOException("cannot find the colony client's " + name);
      }
      Files.write(to, in.readAllBytes());
    }
  }

  /**
   * The {@code colony} command's script: python3 (at {@code python}) running the client's file in
   * {@code code}, or, with no {@code python}, the worker's JDK running its class there.
   */
  static String script(String code, Path python) {
    if (python != null) {
      return "#!/bin/sh\nexec " + quote(python.toString()) + " " + String.join(" ", PythonClient.OPTIONS) + " "
          + quote(code + "/" + PythonClient.FILE) + " \"$@\"\n";
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    // The JDK reads its arguments in the locale's charset (the C locale's is ASCII): UTF-8 always,
    // as the python client does. -Xshare and tiered level 1: a command that runs a few
    // milliseconds of code starts fastest so.
    return "#!/bin/sh\nLC_ALL=C.UTF-8\nexport LC_ALL\nexec " + quote(java) + " -Xshare:auto -XX:TieredStopAtLevel=1 "
        + "-XX:+UseSerialGC -XX:-UsePerfData -cp " + quote(code) + " " + ChannelClient.class.getName() + " \"$@\"\n";
  }

  private static String quote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }

  /** Opens the channel for the session of {@code who}. */
  public static ColonyChannel open(Identity who, Colony colony) throws IOException {
    return open(who, colony, () -> { });
  }

  /** Opens the channel for the session of {@code who}; {@code refusals} counts each request refused. */
  public static ColonyChannel open(Identity who, Colony colony, Runnable refusals) throws IOException {
    if (SWEPT.compareAndSet(false, true)) {
      sweepStale(Path.of(System.getProperty("java.io.tmpdir")));
    }
    return new ColonyChannel(who, colony, System::nanoTime, refusals, PythonClient.PYTHON);
  }

  private static final java.util.concurrent.atomic.AtomicBoolean SWEPT = new java.util.concurrent.atomic.AtomicBoolean();

  /**
   * Removes what workers killed with {@code kill -9} left in {@code tmp}: channel directories older
   * than a minute whose socket nobody serves (several workers may share the directory: a live
   * channel answers, so it stays). Once per worker, at its first session.
   */
  static int sweepStale(Path tmp) {
    int removed = 0;
    try (Stream<Path> dirs = Files.list(tmp)) {
      for (Path d : dirs.filter(p -> p.getFileName().toString().startsWith("colony-channel-")).toList()) {
        try {
          if (!Files.isDirectory(d, java.nio.file.LinkOption.NOFOLLOW_LINKS)
              || Files.getLastModifiedTime(d).toMillis() > System.currentTimeMillis() - 60_000) {
            continue;
          }
          Path sock = d.resolve("colony.sock");
          if (Files.exists(sock)) {
            try (SocketChannel probe = SocketChannel.open(UnixDomainSocketAddress.of(sock))) {
              continue; // served: a live worker's channel
            } catch (IOException refused) {
              // nobody serves it
            }
          }
          delete(d);
          removed++;
        } catch (IOException | RuntimeException e) {
          // another user's, or gone meanwhile: leave it
        }
      }
    } catch (IOException e) {
      // no temp directory to sweep
    }
    return removed;
  }

  /** With a clock in nanoseconds (tests of the rate limit). */
  static ColonyChannel open(Identity who, Colony colony, LongSupplier nanos) throws IOException {
    return new ColonyChannel(who, colony, nanos, () -> { }, PythonClient.PYTHON);
  }

  /** With a clock and a count of refusals (tests). */
  static ColonyChannel open(Identity who, Colony colony, LongSupplier nanos, Runnable refusals) throws IOException {
    return new ColonyChannel(who, colony, nanos, refusals, PythonClient.PYTHON);
  }

  /**
   * With a clock, a count of refusals and the python3 to try ({@code null}, or a path that is not
   * there: the JVM client) (tests).
   */
  static ColonyChannel open(Identity who, Colony colony, LongSupplier nanos, Runnable refusals, Path python)
      throws IOException {
    return new ColonyChannel(who, colony, nanos, refusals, python);
  }

  /** The socket on the worker's disk (bound at {@link #SOCKET} inside). */
  public Path socket() {
    return socket;
  }

  /** The client script on the worker's disk (bound at {@link #BIN} inside). */
  public Path client() {
    return client;
  }

  /** The client's code on the worker's disk, in a directory of its own (bound at {@link #CODE}). */
  public Path code() {
    return code;
  }

  /** The python3 the client runs on, or null when it runs on the worker's JDK. */
  public Path python() {
    return python;
  }

  /** Where {@link #code()} is inside. */
  public String codeInside() {
    return CODE;
  }

  public Identity identity() {
    return who;
  }

  private void accept() {
    while (!closed) {
      SocketChannel ch;
      try {
        ch = server.accept();
      } catch (IOException e) {
        if (!closed) {
          log.warn("{}/{}: channel stopped accepting: {}", who.colony(), who.ant(), e.toString());
        }
        return;
      }
      if (!open.tryAcquire()) {
        refused();
        Thread.ofVirtual().name("channel-busy-" + who.ant()).start(() -> answerAndClose(ch, 1,
            "too many requests at once from this session (at most " + CONNECTIONS + ")"));
        continue;
      }
      Thread.ofVirtual().name("channel-request-" + who.ant()).start(() -> {
        try {
          serve(ch);
        } finally {
          open.release();
        }
      });
    }
  }

  private void serve(SocketChannel ch) {
    // A client that sends nothing, or too slowly, does not hold a connection: closed at the deadline.
    var deadline = deadlines.schedule(() -> closeQuietly(ch), READ_WITHIN_MILLIS, TimeUnit.MILLISECONDS);
    List<String> args;
    try {
      args = read(new DataInputStream(Channels.newInputStream(ch)));
    } catch (BadRequest e) {
      deadline.cancel(false);
      refused();
      answerAndClose(ch, 1, e.getMessage());
      return;
    } catch (IOException e) {
      deadline.cancel(false);
      closeQuietly(ch);
      return;
    }
    deadline.cancel(false);
    if (!take()) {
      refused();
      answerAndClose(ch, 1, "rate limit: at most " + BURST + " requests at once and one a second from a session; "
          + "try again in a few seconds");
      return;
    }
    ChannelRules.Request request = ChannelRules.decide(args, who);
    int code = 0;
    String text;
    try {
      text = switch (request) {
        case ChannelRules.Send s -> colony.send(s.to(), s.mail());
        case ChannelRules.Status s -> colony.status();
        case ChannelRules.Help h -> h.text();
        case ChannelRules.Refused r -> throw new Refusal(r.line());
      };
    } catch (Refusal r) {
      refused();
      code = 1;
      text = r.getMessage();
    } catch (RuntimeException e) {
      code = 1;
      text = "the colony could not do it: " + dev.colony.text.Printable.line(String.valueOf(e.getMessage()), 200);
      log.warn("{}/{}: channel request failed", who.colony(), who.ant(), e);
    }
    if (code != 0) {
      log.info("{}/{} session {}: channel refused: {}", who.colony(), who.ant(), who.session(), text);
    }
    answerAndClose(ch, code, text);
  }

  /** Counts one refused request; counting never stops the answer. */
  private void refused() {
    try {
      refusals.run();
    } catch (RuntimeException e) {
      log.debug("{}/{}: counting a refusal failed", who.colony(), who.ant(), e);
    }
  }

  /** A request's arguments, within the bounds. */
  static List<String> read(DataInputStream in) throws IOException, BadRequest {
    int magic = in.readInt();
    if (magic != ChannelClient.MAGIC) {
      throw new BadRequest("not a colony request: use $COLONY_BIN");
    }
    int n = in.readInt();
    if (n < 0 || n > ChannelClient.MAX_ARGUMENTS) {
      throw new BadRequest("too many arguments (at most " + ChannelClient.MAX_ARGUMENTS + ")");
    }
    var utf8 = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    List<String> args = new ArrayList<>(n);
    long total = 0;
    for (int i = 0; i < n; i++) {
      int length = in.readInt();
      if (length < 0) {
        throw new BadRequest("not a colony request: use $COLONY_BIN");
      }
      total += length;
      if (total > ChannelClient.MAX_REQUEST_BYTES) {
        throw new BadRequest(String.format("the request is over %,d bytes (a message may be at most 16,000 characters)",
            ChannelClient.MAX_REQUEST_BYTES));
      }
      byte[] b = in.readNBytes(length);
      if (b.length < length) {
        throw new java.io.EOFException();
      }
      try {
        String s = utf8.decode(ByteBuffer.wrap(b)).toString();
        if (s.indexOf('\0') >= 0) {
          throw new BadRequest("an argument holds a NUL character: the request must be text");
        }
        args.add(s);
      } catch (CharacterCodingException e) {
        throw new BadRequest("an argument is not UTF-8 text: the request must be text");
      }
    }
    return args;
  }

  static final class BadRequest extends Exception {
    BadRequest(String line) {
      super(line, null, false, false);
    }
  }

  /** The per-session rate limit: a bucket of {@link #BURST}, one back every {@link #REFILL_MILLIS}. */
  private synchronized boolean take() {
    long now = clock.getAsLong();
    tokens = Math.min(BURST, tokens + (now - refilledAt) / (REFILL_MILLIS * 1_000_000.0));
    refilledAt = now;
    if (tokens < 1) {
      return false;
    }
    tokens -= 1;
    return true;
  }

  /**
   * Writes the answer, then reads (and drops) what the client still sends until it closes, or
   * until the deadline: closing a Unix socket with unread bytes resets it, and the client would
   * lose the answer (a refusal sent before its whole request was read).
   */
  private void answerAndClose(SocketChannel ch, int code, String text) {
    var deadline = deadlines.schedule(() -> closeQuietly(ch), READ_WITHIN_MILLIS, TimeUnit.MILLISECONDS);
    try (ch) {
      byte[] b = text == null ? new byte[0] : text.getBytes(StandardCharsets.UTF_8);
      java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(b.length + 8);
      DataOutputStream d = new DataOutputStream(bytes);
      d.writeInt(code);
      d.writeInt(b.length);
      d.write(b);
      ByteBuffer buf = ByteBuffer.wrap(bytes.toByteArray());
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.shutdownOutput();
      ByteBuffer sink = ByteBuffer.allocate(16 * 1024);
      long drained = 0;
      while (drained < 16L * ChannelClient.MAX_REQUEST_BYTES) {
        sink.clear();
        int n = ch.read(sink);
        if (n < 0) {
          break;
        }
        drained += n;
      }
    } catch (IOException e) {
      // the client went away, or the deadline closed it: nothing more to tell it
    } finally {
      deadline.cancel(false);
    }
  }

  private static void closeQuietly(SocketChannel ch) {
    try {
      ch.close();
    } catch (IOException ignored) {
      // closing
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException ignored) {
      // closing
    }
    acceptor.interrupt();
    deadlines.shutdownNow();
    delete(dir);
  }

  private static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException ignored) {
          // left for the temp directory's cleaning
        }
      });
    } catch (IOException ignored) {
      // already gone
    }
  }
}
