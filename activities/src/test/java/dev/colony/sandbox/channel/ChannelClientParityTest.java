package dev.colony.sandbox.channel;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.mailbox.Mail;
import dev.colony.sandbox.channel.ChannelRules.Identity;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The python client and the JVM client are the same command: for each case, python's
 * ({@code channel_client.py} through the channel's script), the JVM fallback's (the script's other
 * branch, a process) and {@link ChannelClient#run} itself (in this JVM, its arguments as the JDK's
 * launcher makes them) print the same bytes to the same stream and exit with the same code, against
 * a real channel or a server that answers what the channel never would.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ChannelClientParityTest {
  static final Identity SCOUT = new Identity("mailbox", "scout", 3);

  @TempDir
  Path tmp;

  final List<String> sent = new CopyOnWriteArrayList<>();
  final AtomicReference<String> status = new AtomicReference<>("mailbox/scout (engine command)\n  state: running");
  /** A second each request: the rate limit never speaks unless a case wants it. */
  final AtomicLong nanos = new AtomicLong();
  ColonyChannel channel;
  Path python;
  Path jvm;

  final ColonyChannel.Colony colony = new ColonyChannel.Colony() {
    @Override
    public String send(String to, Mail mail) throws ColonyChannel.Refusal {
      if (to.equals("nobody")) {
        throw new ColonyChannel.Refusal("no running ant named 'nobody' in colony 'mailbox'");
      }
      if (to.equals("broken")) {
        throw new IllegalStateException("the server is away");
      }
      sent.add(to + ": " + mail.text());
      return "mailbox/" + to + ": message from " + mail.from() + " sent";
    }

    @Override
    public String status() {
      return status.get();
    }
  };

  @BeforeEach
  void open() throws IOException {
    channel = ColonyChannel.open(SCOUT, colony, () -> nanos.addAndGet(TimeUnit.SECONDS.toNanos(1)), () -> { },
        PythonClient.PYTHON);
    // No python3 here that a sandbox runs: the channel chose the JVM, and only the JVM fallback's
    // process is compared with ChannelClient.run.
    python = channel.python() == null ? null : ClientProcess.script(channel, channel.python(), tmp);
    jvm = ClientProcess.script(channel, null, tmp);
  }

  @AfterEach
  void close() {
    channel.close();
  }

  /** The three clients' answers to {@code args} with {@code COLONY_CHANNEL} at {@code socket}: all the same. */
  private ClientProcess.Ran same(String what, String socket, List<byte[]> args) {
    ClientProcess.Ran inJvm = inProcess(socket, args);
    ClientProcess.Ran py = python == null ? null : ClientProcess.run(python, socket, args);
    ClientProcess.Ran fallback = ClientProcess.run(jvm, socket, args);
    if (py != null) {
      assertSame(what + " (python against ChannelClient.run)", inJvm, py);
    }
    assertSame(what + " (the JVM fallback's process against ChannelClient.run)", inJvm, fallback);
    return fallback;
  }

  private static void assertSame(String what, ClientProcess.Ran expected, ClientProcess.Ran actual) {
    assertEquals(expected.code() & 0xFF, actual.code(), what + ": exit code; stderr " + actual.errText());
    assertEquals(expected.outText(), actual.outText(), what + ": stdout");
    assertEquals(expected.errText(), actual.errText(), what + ": stderr");
    assertArrayEquals(expected.out(), actual.out(), what + ": stdout's bytes");
    assertArrayEquals(expected.err(), actual.err(), what + ": stderr's bytes");
  }

  /** ChannelClient.run, its arguments as the JDK's launcher decodes them (UTF-8, as the script asks). */
  private static ClientProcess.Ran inProcess(String socket, List<byte[]> args) {
    List<String> strings = args.stream().map(b -> new String(b, StandardCharsets.UTF_8)).toList();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = ChannelClient.run(strings, socket, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new ClientProcess.Ran(code, out.toByteArray(), err.toByteArray());
  }

  private String socket() {
    return channel.socket().toString();
  }

  @Test
  void answersOfTheChannel() {
    ClientProcess.Ran ok = same("ok", socket(), ClientProcess.bytes("send", "--from", "scout", "builder", "finding", "1"));
    assertEquals(0, ok.code());
    assertEquals("mailbox/builder: message from scout sent\n", ok.outText());
    same("not ASCII", socket(), ClientProcess.bytes("send", "--from", "scout", "builder", "caf\u00e9 \u2713 \ud83d\udc1c"));
    ClientProcess.Ran refused = same("refused", socket(), ClientProcess.bytes("send", "--from", "builder", "tester", "hi"));
    assertEquals(1, refused.code());
    assertEquals("not available inside an ant's session: sending as another ant ('builder'); this session is ant 'scout'\n",
        refused.errText());
    same("refused by the colony", socket(), ClientProcess.bytes("send", "--from", "scout", "nobody", "hi"));
    same("the colony failed", socket(), ClientProcess.bytes("send", "--from", "scout", "broken", "hi"));
    same("a command refused inside", socket(), ClientProcess.bytes("pause", "builder"));
    same("help", socket(), ClientProcess.bytes("--help"));
    same("no arguments", socket(), List.of());
    same("an empty argument", socket(), ClientProcess.bytes("send", "--from", "scout", "builder", ""));
    ClientProcess.Ran lines = same("status, two lines", socket(), ClientProcess.bytes("status"));
    assertEquals("mailbox/scout (engine command)\n  state: running\n", lines.outText());
    status.set("");
    ClientProcess.Ran empty = same("an empty answer", socket(), ClientProcess.bytes("status"));
    assertEquals(0, empty.code());
    assertEquals(0, empty.out().length + empty.err().length, "an empty answer prints nothing");
    status.set("\ud800 a lone surrogate, and \u00e9");
    same("a text with a lone surrogate (the worker's JDK writes '?')", socket(), ClientProcess.bytes("status"));
    status.set("y".repeat(ChannelClient.MAX_ANSWER_BYTES));
    ClientProcess.Ran biggest = same("the biggest answer", socket(), ClientProcess.bytes("status"));
    assertEquals(ChannelClient.MAX_ANSWER_BYTES + 1, biggest.out().length);
    status.set("y".repeat(ChannelClient.MAX_ANSWER_BYTES + 1));
    ClientProcess.Ran huge = same("an answer over the limit", socket(), ClientProcess.bytes("status"));
    assertEquals("the colony's answer was not understood (1048577 bytes)\n", huge.errText());
    assertEquals(1, huge.code());
  }

  @Test
  void boundsOfTheRequest() {
    List<byte[]> many = new ArrayList<>(ClientProcess.bytes("send", "--from", "scout", "builder"));
    while (many.size() <= ChannelClient.MAX_ARGUMENTS) {
      many.add("w".getBytes(StandardCharsets.UTF_8));
    }
    ClientProcess.Ran tooMany = same("too many arguments", socket(), many);
    assertEquals("too many arguments (257; at most 256)\n", tooMany.errText());
    many.removeLast();
    same("as many arguments as allowed", socket(), many);
    ClientProcess.Ran tooLong = same("a request too long", socket(),
        ClientProcess.bytes("send", "--from", "scout", "builder", "x".repeat(70_000), "x".repeat(70_000)));
    assertEquals("the request is 140,022 bytes; at most 131,072 (a message may be at most 16,000 characters)\n",
        tooLong.errText());
    // Every byte counts as UTF-8: 2 bytes a character here.
    same("a request too long in bytes, not in characters", socket(),
        ClientProcess.bytes("send", "--from", "scout", "builder", "\u00e9".repeat(40_000), "\u00e9".repeat(30_000)));
    same("a request at the bound", socket(),
        ClientProcess.bytes("send", "x".repeat(ChannelClient.MAX_REQUEST_BYTES - 4 - 100_000), "y".repeat(100_000)));
  }

  @Test
  void argumentsThatAreNotUtf8AreReadAsTheJdkReadsThem() {
    // Python sees these bytes as surrogate escapes; the JDK's launcher as U+FFFD, as many as it puts.
    byte[][] odd = {
        {(byte) 0xC3, 0x28}, {(byte) 0xE2, (byte) 0x82}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
        {'a', (byte) 0xF0, (byte) 0x9F, (byte) 0x98}, {(byte) 0xC0, (byte) 0x80}, {(byte) 0xFF, (byte) 0xFE},
        {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0xE0, (byte) 0x80, (byte) 0xAF},
        {(byte) 0xF8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80}, {(byte) 0x80, 'z'}};
    int before = sent.size();
    for (byte[] b : odd) {
      List<byte[]> args = new ArrayList<>(ClientProcess.bytes("send", "--from", "scout", "builder"));
      args.add(b);
      ClientProcess.Ran r = same("the argument " + HexFormat.of().formatHex(b), socket(), args);
      assertEquals(0, r.code(), r.errText());
    }
    // Each client sent each once; the texts the colony got are the same.
    int clients = python == null ? 2 : 3;
    assertEquals(clients * odd.length, sent.size() - before);
    for (int i = 0; i < odd.length; i++) {
      String expected = "builder: " + new String(odd[i], StandardCharsets.UTF_8).strip();
      for (int c = 0; c < clients; c++) {
        assertEquals(expected, sent.get(before + clients * i + c), HexFormat.of().formatHex(odd[i]));
      }
    }
    // Too many bytes once decoded: the count is of the JDK's UTF-8, U+FFFD's three bytes each.
    List<byte[]> big = new ArrayList<>(ClientProcess.bytes("send", "--from", "scout", "builder"));
    byte[] ff = new byte[50_000];  // 50,000 bytes, 150,000 once decoded
    java.util.Arrays.fill(ff, (byte) 0xFF);
    big.add(ff);
    ClientProcess.Ran grown = same("50,000 bytes 0xFF", socket(), big);
    assertTrue(grown.errText().startsWith("the request is 150,022 bytes"), grown.errText());
  }

  @Test
  void pythonDecodesBytesAsTheJdkDoes() throws Exception {
    if (python == null) {
      assertTrue(PythonClient.problem(PythonClient.PYTHON, channel.code().resolve(PythonClient.FILE)) != null,
          "the channel runs the JVM only when the check found no python3 it can use");
      return;
    }
    // Random short byte strings, mostly not UTF-8: python's java_utf8 against new String(b, UTF_8).
    Random random = new Random(7);
    List<byte[]> samples = new ArrayList<>();
    int[] pool = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED,
        0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF7, 0xF8, 0xFB, 0xFC, 0xFE, 0xFF};
    for (int i = 0; i < 20_000; i++) {
      byte[] b = new byte[1 + random.nextInt(7)];
      for (int j = 0; j < b.length; j++) {
        b[j] = (byte) (random.nextInt(4) == 0 ? random.nextInt(256) : pool[random.nextInt(pool.length)]);
      }
      samples.add(b);
    }
    Path in = tmp.resolve("samples.txt");
    Files.write(in, samples.stream().map(HexFormat.of()::formatHex).toList());
    Path client = channel.code().resolve(PythonClient.FILE);
    String program = "import sys\n"
        + "g = {'__name__': 'parity'}\n"
        + "exec(compile(open(sys.argv[1], 'rb').read(), sys.argv[1], 'exec'), g)\n"
        + "out = []\n"
        + "for line in open(sys.argv[2]):\n"
        + "    out.append(g['java_utf8'](bytes.fromhex(line.strip())).encode('utf-16-be', 'surrogatepass').hex())\n"
        + "open(sys.argv[3], 'w').write('\\n'.join(out) + '\\n')\n";
    Path result = tmp.resolve("decoded.txt");
    Process p = new ProcessBuilder(PythonClient.PYTHON.toString(), "-I", "-S", "-X", "utf8", "-c", program,
        client.toString(), in.toString(), result.toString()).inheritIO().start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue());
    List<String> decoded = Files.readAllLines(result);
    assertEquals(samples.size(), decoded.size());
    for (int i = 0; i < samples.size(); i++) {
      String jdk = HexFormat.of().formatHex(new String(samples.get(i), StandardCharsets.UTF_8)
          .getBytes(StandardCharsets.UTF_16BE));
      assertEquals(jdk, decoded.get(i), "bytes " + HexFormat.of().formatHex(samples.get(i)));
    }
  }

  @Test
  void theJvmClientsMessagesDoNotFollowTheWorkersLocale() {
    // A worker in a German locale passes its LANG to the session: python prints "140,022" always.
    java.util.Locale was = java.util.Locale.getDefault();
    try {
      java.util.Locale.setDefault(java.util.Locale.GERMANY);
      ClientProcess.Ran r = inProcess(socket(), ClientProcess.bytes("send", "x".repeat(70_000), "x".repeat(70_010)));
      assertEquals("the request is 140,014 bytes; at most 131,072 (a message may be at most 16,000 characters)\n",
          r.errText());
    } finally {
      java.util.Locale.setDefault(was);
    }
  }

  @Test
  void noChannelOrOneThatIsNotThere() throws IOException {
    ClientProcess.Ran unset = same("COLONY_CHANNEL unset", null, ClientProcess.bytes("status"));
    assertEquals("COLONY_CHANNEL is not set: this colony command works only inside an ant's session\n", unset.errText());
    same("COLONY_CHANNEL empty", "", ClientProcess.bytes("status"));
    same("COLONY_CHANNEL blank", " \t\u2003", ClientProcess.bytes("status"));
    same("COLONY_CHANNEL a non-breaking space (not blank to the JDK)", "\u00a0", ClientProcess.bytes("status"));
    same("COLONY_CHANNEL not set, and too many arguments", null,
        java.util.Collections.nCopies(300, "a".getBytes(StandardCharsets.UTF_8)));
    ClientProcess.Ran none = same("no such socket", tmp.resolve("none.sock").toString(), ClientProcess.bytes("status"));
    assertEquals("cannot reach the colony through COLONY_CHANNEL (" + tmp.resolve("none.sock") + "): No such file or directory\n",
        none.errText());
    Path dead = tmp.resolve("dead.sock");
    try (ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      s.bind(UnixDomainSocketAddress.of(dead));
    }
    ClientProcess.Ran refused = same("a socket nobody serves", dead.toString(), ClientProcess.bytes("status"));
    assertTrue(refused.errText().endsWith("): Connection refused\n"), refused.errText());
    same("a file that is not a socket", Files.writeString(tmp.resolve("file"), "x").toString(),
        ClientProcess.bytes("status"));
    same("a directory", tmp.toString(), ClientProcess.bytes("status"));
    same("a relative path", "none.sock", ClientProcess.bytes("status"));
    for (int n : new int[] {106, 107, 108, 120}) {
      String path = "/tmp/" + "p".repeat(n - 5);
      same("a socket path of " + n + " bytes", path, ClientProcess.bytes("status"));
    }
    ClientProcess.Ran slashes = same("the channel's path with redundant slashes",
        "/" + socket().replace("/", "//") + "/", ClientProcess.bytes("status"));
    assertEquals(0, slashes.code(), slashes.errText());
  }

  @Test
  void aRefusalAnsweredBeforeTheRequestWasRead() throws Exception {
    // Every connection of the session taken by silent clients: the channel answers the next one
    // at once, without reading its (large) request.
    List<SocketChannel> silent = new ArrayList<>();
    try {
      for (int i = 0; i < ColonyChannel.CONNECTIONS; i++) {
        silent.add(SocketChannel.open(UnixDomainSocketAddress.of(channel.socket())));
      }
      eventually(Duration.ofSeconds(5), () -> inProcess(socket(), ClientProcess.bytes("status")).errText()
          .startsWith("too many requests at once"), "the channel is busy");
      ClientProcess.Ran busy = same("busy", socket(),
          ClientProcess.bytes("send", "--from", "scout", "builder", "z".repeat(120_000)));
      assertEquals("too many requests at once from this session (at most 4)\n", busy.errText());
    } finally {
      for (SocketChannel s : silent) {
        s.close();
      }
    }
  }

  /** A server that answers each connection with {@code answer}, reading the request first or not. */
  private String server(byte[] answer, boolean readFirst) throws IOException {
    Path sock = Files.createTempDirectory(tmp, "s").resolve("s.sock");
    ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    s.bind(UnixDomainSocketAddress.of(sock));
    servers.add(s);
    Thread.ofVirtual().start(() -> {
      while (s.isOpen()) {
        try (SocketChannel ch = s.accept()) {
          if (readFirst) {
            DataInputStream in = new DataInputStream(Channels.newInputStream(ch));
            in.readInt();
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
              in.readNBytes(in.readInt());
            }
          }
          ByteBuffer b = ByteBuffer.wrap(answer);
          while (b.hasRemaining()) {
            ch.write(b);
          }
        } catch (IOException e) {
          // closed: the test is over, or the client went away
        }
      }
    });
    return sock.toString();
  }

  final List<ServerSocketChannel> servers = new ArrayList<>();

  @AfterEach
  void closeServers() throws IOException {
    for (ServerSocketChannel s : servers) {
      s.close();
    }
  }

  private static byte[] answer(int code, int length, byte[] text) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    DataOutputStream d = new DataOutputStream(b);
    d.writeInt(code);
    d.writeInt(length);
    d.write(text);
    return b.toByteArray();
  }

  @Test
  void answersTheChannelNeverGivesAreReadTheSameToo() throws IOException {
    List<byte[]> status = ClientProcess.bytes("status");
    byte[] refusal = "refused".getBytes(StandardCharsets.UTF_8);
    same("answered and closed without reading a large request", server(answer(1, refusal.length, refusal), false),
        ClientProcess.bytes("send", "--from", "scout", "builder", "q".repeat(120_000)));
    ClientProcess.Ran cut = same("an answer cut inside its head", server(new byte[] {0, 0, 0}, true), status);
    assertTrue(cut.errText().endsWith("): null\n"), cut.errText());
    same("closed without an answer", server(new byte[0], true), status);
    same("an answer shorter than it says", server(answer(0, 10, "abcd".getBytes(StandardCharsets.UTF_8)), true), status);
    byte[] notUtf8 = {'a', (byte) 0xFF, (byte) 0xED, (byte) 0xA0, (byte) 0x80, 'b', (byte) 0xE2, (byte) 0x82};
    same("an answer not UTF-8", server(answer(0, notUtf8.length, notUtf8), true), status);
    same("a negative length", server(answer(0, -1, new byte[0]), true), status);
    same("a length over the limit", server(answer(0, Integer.MAX_VALUE, new byte[0]), true), status);
    same("exit code 3", server(answer(3, 4, "oops".getBytes(StandardCharsets.UTF_8)), true), status);
    same("exit code 256 (exits 0, prints to stderr)", server(answer(256, 2, "hm".getBytes(StandardCharsets.UTF_8)), true),
        status);
    same("exit code -1", server(answer(-1, 0, new byte[0]), true), status);
  }

  @Test
  void ctrlCJustStopsIt() throws Exception {
    // A colony that never answers: the client waits; Ctrl-C (SIGINT) ends it, printing nothing.
    Path sock = Files.createTempDirectory(tmp, "h").resolve("h.sock");
    ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    s.bind(UnixDomainSocketAddress.of(sock));
    servers.add(s);
    List<SocketChannel> held = new CopyOnWriteArrayList<>();
    Thread.ofVirtual().start(() -> {
      try {
        while (true) {
          held.add(s.accept());
        }
      } catch (IOException e) {
        // closed: the test is over
      }
    });
    try {
      for (Path script : python == null ? List.of(jvm) : List.of(python, jvm)) {
        int before = held.size();
        ProcessBuilder pb = new ProcessBuilder(script.toString(), "status").redirectErrorStream(true);
        pb.environment().put("COLONY_CHANNEL", sock.toString());
        Process p = pb.start();
        eventually(Duration.ofSeconds(20), () -> held.size() > before, "the client connected");
        new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start().waitFor();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), script + " still runs after Ctrl-C");
        assertEquals(130, p.exitValue(), script.toString());
        assertEquals("", new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8), "printed nothing");
      }
    } finally {
      for (SocketChannel c : held) {
        c.close();
      }
    }
  }
}
