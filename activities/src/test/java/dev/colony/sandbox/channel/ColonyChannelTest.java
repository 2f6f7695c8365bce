package dev.colony.sandbox.channel;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.mailbox.Mail;
import dev.colony.sandbox.channel.ChannelRules.Identity;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The channel on a real Unix socket, with the real client: requests reach the colony as the
 * channel's ant; bad, huge, binary, silent and too many requests get one line and never wedge it.
 * Here the client is {@link ChannelClient#run} in this JVM; {@link ColonyChannelPythonTest} and
 * {@link ColonyChannelJvmTest} run the same tests through the channel's script, as a session does.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ColonyChannelTest {
  static final Identity SCOUT = new Identity("mailbox", "scout", 3);

  record Sent(String to, Mail mail) {}

  final List<Sent> sent = new CopyOnWriteArrayList<>();
  final AtomicLong nanos = new AtomicLong();
  /** Refusals the channel counted (colony_sandbox_refusals_total{kind="channel"} on a worker). */
  final AtomicLong refusals = new AtomicLong();
  ColonyChannel channel;

  final ColonyChannel.Colony colony = new ColonyChannel.Colony() {
    @Override
    public String send(String to, Mail mail) throws ColonyChannel.Refusal {
      if (to.equals("broken")) {
        throw new IllegalStateException("the server is away");
      }
      if (to.equals("nobody")) {
        throw new ColonyChannel.Refusal("no running ant named 'nobody' in colony 'mailbox'");
      }
      sent.add(new Sent(to, mail));
      return "mailbox/" + to + ": message from " + mail.from() + " sent";
    }

    @Override
    public String status() {
      return "mailbox/scout (engine command)\n  state:              running (session 3)";
    }
  };

  @BeforeEach
  void open() throws IOException {
    channel = ColonyChannel.open(SCOUT, colony, nanos::get, refusals::incrementAndGet, python());
  }

  @AfterEach
  void close() {
    channel.close();
  }

  /** The python3 the channel tries (the JVM client when it is not there). */
  java.nio.file.Path python() {
    return PythonClient.PYTHON;
  }

  /** How many clients the flood starts at once. */
  int floodClients() {
    return 60;
  }

  record Answer(int code, String out, String err) {}

  /** Runs the client with {@code args} against the channel: its exit code, stdout and stderr (stripped). */
  Answer client(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = ChannelClient.run(List.of(args), channel.socket().toString(), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Answer(code, out.toString(StandardCharsets.UTF_8).strip(), err.toString(StandardCharsets.UTF_8).strip());
  }

  /** What the channel answers to raw bytes (code, text). */
  private Answer raw(byte[] request) throws IOException {
    try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(channel.socket()))) {
      try {
        ch.write(ByteBuffer.wrap(request));
      } catch (IOException e) {
        // the channel stopped reading and answered: read what it said
      }
      DataInputStream in = new DataInputStream(Channels.newInputStream(ch));
      int code = in.readInt();
      byte[] text = in.readNBytes(in.readInt());
      return new Answer(code, "", new String(text, StandardCharsets.UTF_8));
    }
  }

  @Test
  void mailGoesAsTheChannelsAntAndAnotherSenderIsRefused() {
    Answer ok = client("send", "--from", "scout", "builder", "finding", "1");
    assertEquals(new Answer(0, "mailbox/builder: message from scout sent", ""), ok);
    assertEquals(List.of(new Sent("builder", new Mail("finding 1", false, "scout",
        Mail.derivedId("scout", "3", "builder", "finding 1")))), sent);
    Answer forged = client("send", "--from", "builder", "tester", "hi");
    assertEquals(1, forged.code());
    assertEquals("not available inside an ant's session: sending as another ant ('builder'); this session is ant 'scout'",
        forged.err());
    Answer pause = client("pause", "builder");
    assertEquals(1, pause.code());
    assertTrue(pause.err().startsWith("not available inside an ant's session: colony pause"), pause.err());
    Answer unknown = client("send", "--from", "scout", "nobody", "hi");
    assertEquals(new Answer(1, "", "no running ant named 'nobody' in colony 'mailbox'"), unknown);
    assertEquals(1, sent.size(), "only the honest mail was sent");
    assertEquals(0, client("status").code());
    assertTrue(client("status").out().contains("state:              running (session 3)"));
    assertEquals(3, refusals.get(), "the forged sender, the pause and the unknown peer are refusals; nothing else");
    Answer failed = client("send", "--from", "scout", "broken", "hi");
    assertEquals(1, failed.code());
    assertTrue(failed.err().startsWith("the colony could not do it"), failed.err());
    assertEquals(3, refusals.get(), "a request the colony failed to carry out was not refused");
  }

  @Test
  void aHugeRequestGetsOneLineAndTheChannelGoesOn() throws IOException {
    // Two arguments: a process's one argument is at most 128 KiB (the kernel's MAX_ARG_STRLEN).
    Answer big = client("send", "--from", "scout", "builder", "x".repeat(100_000), "x".repeat(100_000));
    assertEquals(1, big.code());
    assertTrue(big.err().startsWith("the request is 200,0"), big.err());
    // A client that ignores the bound and streams 8 MiB: the channel stops reading at the bound.
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    DataOutputStream d = new DataOutputStream(b);
    d.writeInt(ChannelClient.MAGIC);
    d.writeInt(2);
    d.writeInt(4);
    d.write("send".getBytes(StandardCharsets.UTF_8));
    d.writeInt(8 << 20);
    d.write(new byte[8 << 20]);
    Answer streamed = raw(b.toByteArray());
    assertEquals(1, streamed.code());
    assertTrue(streamed.err().startsWith("the request is over 131,072 bytes"), streamed.err());
    assertEquals(0, client("send", "--from", "scout", "builder", "still here").code());
  }

  @Test
  void binaryAndNonTextRequestsAreRefused() throws IOException {
    byte[] garbage = new byte[4096];
    new java.util.Random(1).nextBytes(garbage);
    Answer g = raw(garbage);
    assertEquals(new Answer(1, "", "not a colony request: use $COLONY_BIN"), g);
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    DataOutputStream d = new DataOutputStream(b);
    d.writeInt(ChannelClient.MAGIC);
    d.writeInt(1);
    d.writeInt(2);
    d.write(new byte[] {(byte) 0xC3, (byte) 0x28});
    assertEquals(new Answer(1, "", "an argument is not UTF-8 text: the request must be text"), raw(b.toByteArray()));
    assertTrue(sent.isEmpty());
  }

  @Test
  void silentClientsDoNotWedgeIt() throws Exception {
    List<SocketChannel> silent = new ArrayList<>();
    try {
      for (int i = 0; i < ColonyChannel.CONNECTIONS; i++) {
        silent.add(SocketChannel.open(UnixDomainSocketAddress.of(channel.socket())));
      }
      // Every connection is taken by a client that says nothing: the next one hears why at once.
      eventually(Duration.ofSeconds(5), () -> client("status").err().startsWith("too many requests at once"),
          "a fifth connection is told");
      // At the read deadline the silent ones are closed, and the channel serves again.
      eventually(Duration.ofSeconds(15), () -> client("status").code() == 0, "served after the deadline");
    } finally {
      for (SocketChannel s : silent) {
        s.close();
      }
    }
  }

  @Test
  void aFloodOfConnectionsGetsAnswersNeverResets() throws Exception {
    // 60 clients at once (fewer JVMs): each hears an answer (done, or "too many at once"); none loses it to a
    // connection closed with its request unread.
    nanos.set(0);
    List<Answer> answers = new CopyOnWriteArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < floodClients(); i++) {
      threads.add(Thread.ofPlatform().start(() -> answers.add(client("status")))); // as the client runs: its own thread
    }
    for (Thread t : threads) {
      t.join();
    }
    assertEquals(floodClients(), answers.size());
    for (Answer a : answers) {
      assertTrue(a.code() == 0 || a.err().startsWith("too many requests at once")
          || a.err().startsWith("rate limit:"), a.toString());
    }
    nanos.addAndGet(TimeUnit.SECONDS.toNanos(30));
    assertEquals(0, client("status").code());
  }

  @Test
  void aSessionIsRateLimited() {
    for (int i = 0; i < ColonyChannel.BURST; i++) {
      assertEquals(0, client("send", "--from", "scout", "builder", "m" + i).code(), "request " + i);
    }
    Answer over = client("send", "--from", "scout", "builder", "one too many");
    assertEquals(1, over.code());
    assertTrue(over.err().startsWith("rate limit: at most 20 requests at once and one a second"), over.err());
    assertEquals(1, refusals.get(), "the request over the rate is counted as refused");
    nanos.addAndGet(TimeUnit.SECONDS.toNanos(2));
    assertEquals(0, client("send", "--from", "scout", "builder", "later").code());
    assertEquals(ColonyChannel.BURST + 1, sent.size());
  }

  @Test
  void closingRemovesTheSocketAndItsDirectory() {
    var dir = channel.socket().getParent();
    assertTrue(Files.exists(channel.socket()));
    channel.close();
    assertFalse(Files.exists(dir), "the channel's directory is gone");
    Answer after = client("status");
    assertEquals(1, after.code());
    assertTrue(after.err().startsWith("cannot reach the colony through COLONY_CHANNEL"), after.err());
  }

  @Test
  void whatAKilledWorkerLeftIsSweptAndALiveChannelIsNot(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp)
      throws IOException {
    // A dead worker's directory: its socket file is there, nobody serves it.
    java.nio.file.Path dead = Files.createDirectory(tmp.resolve("colony-channel-1"));
    try (var s = java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
      s.bind(UnixDomainSocketAddress.of(dead.resolve("colony.sock")));
    }
    java.nio.file.Path young = Files.createDirectory(tmp.resolve("colony-channel-2"));
    // A live worker's: its socket is served.
    java.nio.file.Path live = Files.createDirectory(tmp.resolve("colony-channel-3"));
    try (var served = java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
      served.bind(UnixDomainSocketAddress.of(live.resolve("colony.sock")));
      java.nio.file.attribute.FileTime old = java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 120_000);
      Files.setLastModifiedTime(dead, old);
      Files.setLastModifiedTime(live, old);
      assertEquals(1, ColonyChannel.sweepStale(tmp));
    }
    assertFalse(Files.exists(dead), "the dead worker's channel is swept");
    assertTrue(Files.exists(young), "one made within the minute stays (it may be being made)");
    assertTrue(Files.exists(live.resolve("colony.sock")), "a live channel stays");
  }

  @Test
  void theChannelsDirectoryIsTheWorkersOnly() throws IOException {
    assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(
        Files.getPosixFilePermissions(channel.socket().getParent())));
    assertTrue(channel.socket().toString().length() < 100, "a socket's path is at most 107 bytes: " + channel.socket());
  }
}
