import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * A stand-in for an overseer model, to try examples/llm-supervisor offline: it speaks the
 * Anthropic Messages API (POST /v1/messages) and Gemini's generateContent, and judges the window
 * the way a careful model would for this example: the same tool call three times or more is
 * SPIRALING, anything else is OK. Run it with the JDK alone: java FakeModel.java [port]
 */
public class FakeModel {
  public static void main(String[] args) throws IOException {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 8765;
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
    server.createContext("/", FakeModel::handle);
    server.start();
    System.out.println("fake model on http://127.0.0.1:" + server.getAddress().getPort());
  }

  static void handle(HttpExchange ex) throws IOException {
    String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    String verdict = judge(body);
    String reply = ex.getRequestURI().getPath().endsWith(":generateContent")
        ? "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":" + quote(verdict)
            + "}]},\"finishReason\":\"STOP\"}]}"
        : "{\"id\":\"msg_fake\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"fake\",\"content\":[{\"type\":\"text\","
            + "\"text\":" + quote(verdict) + "}],\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}";
    byte[] bytes = reply.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().add("Content-Type", "application/json");
    ex.sendResponseHeaders(200, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  /** Counts the numbered turn lines of the prompt ("3. tool FAILED Bash make test -> ..."). */
  static String judge(String body) {
    Map<String, Integer> seen = new HashMap<>();
    int most = 0;
    String repeated = "";
    for (String line : body.split("\\\\n")) {
      int dot = line.indexOf(". tool ");
      if (dot > 0 && line.substring(0, dot).chars().allMatch(Character::isDigit)) {
        String call = line.substring(dot + 2);
        int n = seen.merge(call, 1, Integer::sum);
        if (n > most) {
          most = n;
          repeated = call;
        }
      }
    }
    if (most >= 3) {
      String shown = repeated.replace("\\\"", "'");
      return "{\"verdict\":\"SPIRALING\",\"whisper\":\"You have run the same command " + most
          + " times with the same failure. Read the first error and change something before running it again.\","
          + "\"reason\":\"the same call " + most + " times in a row: " + shown.replace("\"", "'") + "\"}";
    }
    return "{\"verdict\":\"OK\",\"whisper\":\"\",\"reason\":\"\"}";
  }

  static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
