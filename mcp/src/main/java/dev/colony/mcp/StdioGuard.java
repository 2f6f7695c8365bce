package dev.colony.mcp;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What stands between a client's standard output and the SDK's stdio transport. The SDK ends the
 * whole session on the first line it cannot read as a JSON-RPC message (a blank line, {@code {}},
 * JSON nested deeper than its parser allows, a line over its size limit): the agent host then
 * waits for answers that never come. This stream passes on only lines the SDK reads, and answers
 * every other one itself with the protocol's error (parse error {@code -32700}, invalid request
 * {@code -32600}), so one bad line costs that line only. Blank lines are skipped; a carriage
 * return between tokens, where the SDK would end the line, is passed on as a space.
 */
public final class StdioGuard extends InputStream {
  /** A message longer than this (in characters) is refused: the SDK's own limit is 16 MiB. */
  public static final int MAX_LINE = 4 * 1024 * 1024;

  private final Reader in;
  private final OutputStream out;
  private final McpJsonMapper json;
  private final Runnable ended;
  private byte[] line = new byte[0];
  private int pos;
  private boolean eof;

  /**
   * @param out the protocol's output, the same stream the transport writes to (its lock keeps
   *     the two writers' lines whole)
   * @param ended run once when the client closes its end
   */
  public StdioGuard(InputStream in, OutputStream out, McpJsonMapper json, Runnable ended) {
    this.in = new InputStreamReader(in, StandardCharsets.UTF_8);
    this.out = out;
    this.json = json;
    this.ended = ended;
  }

  @Override
  public int read() throws IOException {
    if (!fill()) {
      return -1;
    }
    return line[pos++] & 0xff;
  }

  @Override
  public int read(byte[] buf, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    if (!fill()) {
      return -1;
    }
    int n = Math.min(len, line.length - pos);
    System.arraycopy(line, pos, buf, off, n);
    pos += n;
    return n;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }

  /** True when bytes of an accepted line are ready; false at the end of input. */
  private boolean fill() throws IOException {
    while (pos >= line.length) {
      if (eof) {
        return false;
      }
      String next = nextLine();
      if (next == null) {
        eof = true;
        ended.run();
        return false;
      }
      if (next.endsWith("\r")) {
        next = next.substring(0, next.length() - 1); // a CRLF line end
      }
      if (accept(next)) {
        // The SDK ends a line at a CR too. One that passed the parser was whitespace between
        // tokens (inside a string it is refused), so it goes on as a space.
        line = (next.replace('\r', ' ') + "\n").getBytes(StandardCharsets.UTF_8);
        pos = 0;
      }
    }
    return true;
  }

  /** The next line without its end, at most {@link #MAX_LINE} characters; null at the end of input. */
  private String nextLine() throws IOException {
    StringBuilder sb = new StringBuilder();
    boolean over = false;
    int c;
    while ((c = in.read()) >= 0 && c != '\n') {
      if (sb.length() < MAX_LINE) {
        sb.append((char) c);
      } else {
        over = true;
      }
    }
    if (c < 0 && sb.isEmpty()) {
      return null;
    }
    if (over) {
      answer(null, -32600, "message over " + (MAX_LINE / (1024 * 1024)) + " MiB refused");
      return "";
    }
    return sb.toString();
  }

  /** True when the SDK will read {@code text}; otherwise it has been answered here. */
  private boolean accept(String text) {
    if (text.isBlank()) {
      return false;
    }
    try {
      McpSchema.deserializeJsonRpcMessage(json, text);
      return true;
    } catch (Exception e) {
      Object id = idOf(text);
      if (id == NOT_JSON) {
        answer(null, -32700, "parse error: the line is not JSON the server can read (one JSON-RPC message per line)");
      } else {
        answer(id, -32600, "invalid request: not a JSON-RPC request, notification or response");
      }
      return false;
    }
  }

  private static final Object NOT_JSON = new Object();

  /** The request's id when {@code text} is a JSON object with one, null without, NOT_JSON when unreadable. */
  private Object idOf(String text) {
    try {
      Object value = json.readValue(text, Object.class);
      Object id = value instanceof Map<?, ?> map ? map.get("id") : null;
      return id instanceof String || id instanceof Number ? id : null;
    } catch (Exception e) {
      return NOT_JSON;
    }
  }

  private void answer(Object id, int code, String message) {
    Map<String, Object> error = new LinkedHashMap<>();
    error.put("code", code);
    error.put("message", message);
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("jsonrpc", "2.0");
    reply.put("id", id);
    reply.put("error", error);
    try {
      byte[] bytes = (json.writeValueAsString(reply) + "\n").getBytes(StandardCharsets.UTF_8);
      synchronized (out) {
        out.write(bytes);
        out.flush();
      }
    } catch (IOException e) {
      // The client is gone: the end of its input follows.
    }
  }
}
