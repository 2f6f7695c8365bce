package dev.colony.github.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.trigger.IssueEvent;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class WebhookServerTest {
  private static final String SECRET = "whsec-test-123";
  private final OkHttpClient http = new OkHttpClient();

  private static String sign(String secret, byte[] body) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    return "sha256=" + HexFormat.of().formatHex(mac.doFinal(body));
  }

  private int post(int port, String event, String signature, byte[] body) throws Exception {
    Request.Builder r = new Request.Builder().url("http://127.0.0.1:" + port + "/github")
        .post(RequestBody.create(body, MediaType.get("application/json"))).header("X-GitHub-Event", event);
    if (signature != null) {
      r.header("X-Hub-Signature-256", signature);
    }
    try (Response resp = http.newCall(r.build()).execute()) {
      return resp.code();
    }
  }

  @Test
  void signedIssueDeliveriesWakeAndAnythingElseIsRefusedOrIgnored() throws Exception {
    List<IssueEvent> got = new CopyOnWriteArrayList<>();
    try (WebhookServer s = new WebhookServer(new InetSocketAddress("127.0.0.1", 0), SECRET, got::add)) {
      byte[] opened = """
          {"action":"opened","repository":{"full_name":"acme/app"},
           "issue":{"number":7,"title":"Crash","html_url":"https://github.com/acme/app/issues/7","state":"open",
                    "labels":[{"name":"bug"}],"body":"it crashes"}}""".getBytes(StandardCharsets.UTF_8);
      assertEquals(204, post(s.port(), "issues", sign(SECRET, opened), opened));
      assertEquals(1, got.size());
      assertEquals("acme/app#7", got.get(0).key());
      assertEquals(List.of("bug"), got.get(0).labels());

      assertEquals(401, post(s.port(), "issues", sign("wrong-secret", opened), opened));
      assertEquals(401, post(s.port(), "issues", null, opened));
      assertEquals(401, post(s.port(), "issues", "sha256=zz-not-hex", opened));
      byte[] pr = new String(opened, StandardCharsets.UTF_8).replace("\"state\":\"open\"",
          "\"state\":\"open\",\"pull_request\":{}").getBytes(StandardCharsets.UTF_8);
      assertEquals(204, post(s.port(), "issues", sign(SECRET, pr), pr));
      byte[] closed = new String(opened, StandardCharsets.UTF_8).replace("opened", "closed").getBytes(StandardCharsets.UTF_8);
      assertEquals(204, post(s.port(), "issues", sign(SECRET, closed), closed));
      assertEquals(2, got.size(), "a closed issue goes to the watcher (its task, if any, moves to Done)");
      assertTrue(got.get(1).closed() && !got.get(0).closed());
      assertEquals("acme/app#7", got.get(1).key());
      assertEquals(204, post(s.port(), "ping", sign(SECRET, "{}".getBytes()), "{}".getBytes()));
      byte[] junk = "\u0000\u0001not json".getBytes(StandardCharsets.UTF_8);
      assertEquals(400, post(s.port(), "issues", sign(SECRET, junk), junk));
      byte[] huge = new byte[WebhookServer.MAX_BODY + 10];
      assertEquals(413, post(s.port(), "issues", sign(SECRET, huge), huge));
      assertEquals(2, got.size(), "only the signed issues (opened, closed) got through");
    }
    try (WebhookServer noSecret = new WebhookServer(new InetSocketAddress("127.0.0.1", 0), null, got::add)) {
      byte[] b = "{}".getBytes();
      assertEquals(401, post(noSecret.port(), "issues", sign(SECRET, b), b));
    }
    assertTrue(got.size() == 2);
  }
}
