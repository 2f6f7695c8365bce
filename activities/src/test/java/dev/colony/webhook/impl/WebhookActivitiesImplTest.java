package dev.colony.webhook.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colony.supervision.ColonyEvent;
import dev.colony.webhook.WebhookDelivery;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class WebhookActivitiesImplTest {
  @TempDir
  Path dir;

  private static final ColonyEvent EVENT = new ColonyEvent(7, 1_700_000_000_000L, "agent_restarted", "builder",
      "pipeline", "rest_for_one", "scout failed (rest_for_one)");

  @Test
  void eventsArePostedAsSignedJsonWithTheSecretAndTokenResolvedOnTheWorker() throws Exception {
    try (MockWebServer server = new MockWebServer()) {
      server.enqueue(new MockResponse.Builder().code(204).build());
      server.start();
      Files.writeString(dir.resolve(".env"), "HOOK_SECRET=s3cret-value\nHOOK_TOKEN=tok-98765\n");
      String url = server.url("/hooks/colony").toString() + "?token=${HOOK_TOKEN}";
      new WebhookActivitiesImpl(new OkHttpClient()).deliver(
          new WebhookDelivery("c", dir.toString(), url, "HOOK_SECRET", EVENT));
      RecordedRequest r = server.takeRequest();
      assertEquals("POST", r.getMethod());
      assertEquals("tok-98765", r.getUrl().queryParameter("token"));
      byte[] body = r.getBody().toByteArray();
      assertEquals("sha256=" + WebhookActivitiesImpl.sign("s3cret-value", body), r.getHeaders().get("X-Colony-Signature-256"));
      assertEquals("agent_restarted", r.getHeaders().get("X-Colony-Event"));
      assertEquals("c/7", r.getHeaders().get("X-Colony-Delivery"));
      JsonNode json = WebhookActivitiesImpl.JSON.readTree(new String(body, StandardCharsets.UTF_8));
      assertEquals("builder", json.path("event").path("ant").asText());
      assertEquals("2023-11-14T22:13:20Z", json.path("event").path("at").asText());
      assertEquals("rest_for_one", json.path("event").path("strategy").asText());
    }
  }

  @Test
  void aRefusingOrMissingEndpointIsARetryableErrorThatNamesNoUrl() throws Exception {
    try (MockWebServer server = new MockWebServer()) {
      server.enqueue(new MockResponse.Builder().code(503).build());
      server.start();
      String url = server.url("/hook?key=${HOOK_TOKEN}").toString().replace("%7B", "{").replace("%7D", "}");
      Files.writeString(dir.resolve(".env"), "HOOK_TOKEN=tok-98765\n");
      WebhookActivitiesImpl hooks = new WebhookActivitiesImpl(new OkHttpClient());
      ApplicationFailure refused = assertThrows(ApplicationFailure.class,
          () -> hooks.deliver(new WebhookDelivery("c", dir.toString(), url, null, EVENT)));
      assertFalse(refused.isNonRetryable());
      assertEquals("the webhook answered 503", refused.getOriginalMessage());
      server.close();
      ApplicationFailure gone = assertThrows(ApplicationFailure.class,
          () -> hooks.deliver(new WebhookDelivery("c", dir.toString(), url, null, EVENT)));
      assertFalse(gone.getOriginalMessage().contains("tok-98765"), gone.getOriginalMessage());
      assertTrue(gone.getOriginalMessage().startsWith("the webhook cannot be reached"));
    }
  }
}
