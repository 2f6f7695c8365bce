package dev.colony.sandbox.channel;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code colony} command inside an ant's session ({@code $COLONY_BIN}): it hands its command
 * line to the worker over the session's channel ({@code $COLONY_CHANNEL}, a Unix socket) and prints
 * the answer, so {@code "$COLONY_BIN" send --from "$COLONY_ANT" PEER TEXT} works as with the real
 * CLI. It decides nothing: the worker knows whose channel it is and what it allows. Only JDK
 * classes, so it starts fast and needs nothing but its own class on the class path.
 *
 * <p>Its twin in python3, {@code channel_client.py} beside this class, is what a session runs when
 * the worker's python3 can run in the sandbox ({@link PythonClient}): a few milliseconds against a
 * JVM's tens. Both print the same bytes to the same stream and exit with the same code in every
 * case ({@code ChannelClientParityTest}): a change here is a change there.
 *
 * <p>The wire, both ways {@link DataOutputStream}'s big-endian ints: the request is
 * {@link #MAGIC}, the number of arguments, then each argument as a length and its UTF-8 bytes; the
 * answer is the exit code, a length, and the UTF-8 text to print.
 */
public final class ChannelClient {
  /** "COL1": what a request starts with (anything else is refused at once). */
  static final int MAGIC = 0x434F4C31;
  /** The most a request may hold (all arguments' bytes): a message is at most 16,000 characters. */
  static final int MAX_REQUEST_BYTES = 128 * 1024;
  static final int MAX_ARGUMENTS = 256;
  static final int MAX_ANSWER_BYTES = 1024 * 1024;

  private ChannelClient() {}

  public static void main(String[] args) {
    PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
    PrintStream err = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.err), true, StandardCharsets.UTF_8);
    System.exit(run(List.of(args), System.getenv("COLONY_CHANNEL"), out, err));
  }

  /** Sends {@code args} over the channel at {@code socket}; prints the answer; returns the exit code. */
  static int run(List<String> args, String socket, PrintStream out, PrintStream err) {
    if (socket == null || socket.isBlank()) {
      err.println("COLONY_CHANNEL is not set: this colony command works only inside an ant's session");
      return 1;
    }
    byte[] request;
    try {
      request = encode(args);
    } catch (IllegalArgumentException e) {
      err.println(e.getMessage());
      return 1;
    }
    try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
      try {
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(request);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
      } catch (IOException e) {
        // The colony answered before reading it all (a refusal): its answer is still there to read.
      }
      DataInputStream in = new DataInputStream(Channels.newInputStream(ch));
      int code = in.readInt();
      int length = in.readInt();
      if (length < 0 || length > MAX_ANSWER_BYTES) {
        err.println("the colony's answer was not understood (" + length + " bytes)");
        return 1;
      }
      String text = new String(in.readNBytes(length), StandardCharsets.UTF_8);
      PrintStream to = code == 0 ? out : err;
      if (!text.isEmpty()) {
        to.println(text);
      }
      return code;
    } catch (IOException e) {
      err.println("cannot reach the colony through COLONY_CHANNEL (" + socket + "): " + e.getMessage());
      return 1;
    }
  }

  /** The request's bytes; too many or too big arguments: the reason, as the worker would say it. */
  static byte[] encode(List<String> args) {
    if (args.size() > MAX_ARGUMENTS) {
      throw new IllegalArgumentException("too many arguments (" + args.size() + "; at most " + MAX_ARGUMENTS + ")");
    }
    List<byte[]> parts = new ArrayList<>();
    long total = 0;
    for (String a : args) {
      byte[] b = a.getBytes(StandardCharsets.UTF_8);
      total += b.length;
      parts.add(b);
    }
    if (total > MAX_REQUEST_BYTES) {
      throw new IllegalArgumentException(String.format(java.util.Locale.ROOT,
          "the request is %,d bytes; at most %,d (a message may be "
          + "at most 16,000 characters)", total, MAX_REQUEST_BYTES));
    }
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream((int) total + 8 + 4 * parts.size());
    try (DataOutputStream d = new DataOutputStream(bytes)) {
      d.writeInt(MAGIC);
      d.writeInt(parts.size());
      for (byte[] b : parts) {
        d.writeInt(b.length);
        d.write(b);
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return bytes.toByteArray();
  }
}
