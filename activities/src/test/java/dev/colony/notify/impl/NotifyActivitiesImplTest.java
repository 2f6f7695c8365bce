package dev.colony.notify.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.fakes.FakeNtfy;
import dev.colony.notify.Notice;
import dev.colony.notify.NotifyResult;
import dev.colony.spec.NotifySpec.QuietHours;
import dev.colony.spec.NotifySpec;
import dev.colony.webhook.impl.WebhookActivitiesImpl;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Notices to a fake ntfy and a local webhook, through OkHttp: what is sent, to whom, when quiet hours hold it. */
@Timeout(30)
class NotifyActivitiesImplTest {
  private static final QuietHours NIGHT = new QuietHours("Europe/Berlin", "22:00", "07:00");
  /** 23:30 in Berlin: inside NIGHT. */
  private static final long NIGHT_AT = ZonedDateTime.of(2026, 11, 25, 23, 30, 0, 0, ZoneId.of("Europe/Berlin"))
      .toInstant().toEpochMilli();
  /** 12:00 in Berlin: outside it. */
  private static final long NOON = ZonedDateTime.of(2026, 11, 25, 12, 0, 0, 0, ZoneId.of("Europe/Berlin"))
      .toInstant().toEpochMilli();

  @TempDir
  Path dir;

  private final FakeNtfy ntfy;
  private final NotifyActivitiesImpl impl = new NotifyActivitiesImpl(new OkHttpClient(), "default");

  NotifyActivitiesImplTest() throws IOException {
    ntfy = new FakeNtfy().requireToken("tk_secret_token_123");
  }

  @AfterEach
  void close() throws IOException {
    ntfy.close();
  }

  private Notice notice(NotifySpec spec, boolean urgent, long at, long previous, int round) throws IOException {
    Files.writeString(dir.resolve(".env"), "NTFY_URL=" + ntfy.url() + "/team-alerts\nNTFY_TOKEN=tk_secret_token_123\n"
        + "DANA_URL=" + ntfy.url() + "/dana-phone\n");
    return new Notice("c", dir.toString(), "fixer", "ant/c/fixer", urgent ? "pause-budget-1" : "request-1",
        urgent ? "budget" : "confirmation", urgent, "fixer wants to use Bash (git push)",
        "colony approve c/fixer 1  or  colony deny c/fixer 1", round, at, previous, spec);
  }

  private static NotifySpec spec(QuietHours colony, QuietHours dana, String webhook) {
    return new NotifySpec(1800, 1, "http://ui.example:8233/", colony, List.of(
        new NotifySpec.Ntfy("team", "${NTFY_URL}", "NTFY_TOKEN", "high", null),
        new NotifySpec.Ntfy("dana", "${DANA_URL}", "NTFY_TOKEN", "default", dana)), webhook, webhook == null ? null : "HOOK_SECRET");
  }

  @Test
  void aNoticeIsPublishedWithTitleAnswerPriorityAndALinkToTheAnt() throws Exception {
    NotifyResult r = impl.notify(notice(spec(null, null, null), false, NOON, 0, 0));
    assertEquals(2, r.sent());
    assertEquals(0, r.heldUntilMillis());
    FakeNtfy.Message team = ntfy.in("team-alerts").get(0);
    assertEquals("c/fixer needs a human", team.title());
    assertEquals("fixer wants to use Bash (git push)\nAnswer: colony approve c/fixer 1  or  colony deny c/fixer 1",
        team.message());
    assertEquals(4, team.priority());
    assertEquals("http://ui.example:8233/namespaces/default/workflows/ant%2Fc%2Ffixer", team.click());
    assertEquals(team.click(), team.actionUrl());
    assertEquals("Bearer tk_secret_token_123", team.authorization());
    assertEquals(3, ntfy.in("dana-phone").get(0).priority());
    // A reminder says so; an urgent notice is pushed at the highest priority.
    impl.notify(notice(spec(null, null, null), false, NOON, 0, 1));
    assertEquals("Reminder: c/fixer needs a human", ntfy.in("team-alerts").get(1).title());
    impl.notify(notice(spec(null, null, null), true, NOON, 0, 0));
    assertEquals(5, ntfy.in("team-alerts").get(2).priority());
    assertEquals("c/fixer needs a human now", ntfy.in("team-alerts").get(2).title());
  }

  @Test
  void quietHoursHoldWhatIsNotUrgentUntilTheyEndPerTopic() throws Exception {
    // Dana sleeps (her own quiet hours); the team topic has none.
    NotifyResult r = impl.notify(notice(spec(null, NIGHT, null), false, NIGHT_AT, 0, 0));
    assertEquals(1, r.sent());
    long sevenAm = ZonedDateTime.of(2026, 11, 26, 7, 0, 0, 0, ZoneId.of("Europe/Berlin")).toInstant().toEpochMilli();
    assertEquals(sevenAm, r.heldUntilMillis());
    assertEquals(List.of(), ntfy.in("dana-phone"));
    // At seven the workflow asks again: only Dana gets it now.
    NotifyResult later = impl.notify(notice(spec(null, NIGHT, null), false, sevenAm, NIGHT_AT, 0));
    assertEquals(1, later.sent());
    assertEquals(1, ntfy.in("team-alerts").size());
    assertEquals(1, ntfy.in("dana-phone").size());
    // The colony's quiet hours apply to topics without their own; urgent notices ignore them.
    NotifyResult all = impl.notify(notice(spec(NIGHT, null, null), false, NIGHT_AT, 0, 0));
    assertEquals(0, all.sent());
    assertEquals(sevenAm, all.heldUntilMillis());
    NotifyResult urgent = impl.notify(notice(spec(NIGHT, null, null), true, NIGHT_AT, 0, 0));
    assertEquals(2, urgent.sent());
    assertEquals(0, urgent.heldUntilMillis());
    // A window that does not span midnight.
    assertTrue(QuietWindow.contains(new QuietHours("UTC", "12:00", "13:00"), java.time.Instant.parse("2026-11-25T12:30:00Z")));
    assertFalse(QuietWindow.contains(new QuietHours("UTC", "12:00", "13:00"), java.time.Instant.parse("2026-11-25T13:00:00Z")));
  }

  @Test
  void anUnreachableOrRefusingTopicIsOneLineAndOnlyAllUnreachableIsRetried() throws Exception {
    NotifySpec oneDown = new NotifySpec(1800, 1, null, null, List.of(
        new NotifySpec.Ntfy("team", "${NTFY_URL}", "NTFY_TOKEN", "high", null),
        new NotifySpec.Ntfy("gone", "http://127.0.0.1:9/gone", null, "high", null)), null, null);
    assertEquals(1, impl.notify(notice(oneDown, false, NOON, 0, 0)).sent());
    NotifySpec allDown = new NotifySpec(1800, 1, null, null, List.of(
        new NotifySpec.Ntfy(null, "http://127.0.0.1:9/gone", null, "high", null)), null, null);
    ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> impl.notify(notice(allDown, false, NOON, 0, 0)));
    assertTrue(f.getOriginalMessage().contains("no notification target could be reached"), f.getOriginalMessage());
    // A refused token is not retried (retrying cannot fix it), and the token is never in the message.
    NotifySpec badToken = new NotifySpec(1800, 1, null, null, List.of(
        new NotifySpec.Ntfy("team", "${NTFY_URL}", null, "high", null)), null, null);
    assertEquals(0, impl.notify(notice(badToken, false, NOON, 0, 0)).sent());
    // A server error is retried.
    ntfy.failNext(1);
    NotifySpec one = new NotifySpec(1800, 1, null, null, List.of(
        new NotifySpec.Ntfy("team", "${NTFY_URL}", "NTFY_TOKEN", "high", null)), null, null);
    assertThrows(ApplicationFailure.class, () -> impl.notify(notice(one, false, NOON, 0, 0)));
    assertEquals(1, impl.notify(notice(one, false, NOON, 0, 0)).sent());
  }

  @Test
  void theColonyWebhookGetsEachNoticeSigned() throws Exception {
    try (MockWebServer hook = new MockWebServer()) {
      hook.enqueue(new MockResponse.Builder().code(204).build());
      hook.start();
      Files.writeString(dir.resolve(".env"), "HOOK_SECRET=s3cret-signing-key\n");
      NotifySpec s = new NotifySpec(1800, 1, null, null, List.of(), hook.url("/colony").toString(), "HOOK_SECRET");
      Notice n = new Notice("c", dir.toString(), "fixer", "ant/c/fixer", "pause-auth-5", "auth", false, "fixer is paused",
          "colony resume c/fixer", 0, NOON, 0, s);
      assertEquals(1, impl.notify(n).sent());
      RecordedRequest r = hook.takeRequest();
      String body = r.getBody().utf8();
      assertEquals("needs_human", r.getHeaders().get("X-Colony-Event"));
      assertEquals("ant/c/fixer/pause-auth-5/0", r.getHeaders().get("X-Colony-Delivery"));
      assertEquals("sha256=" + WebhookActivitiesImpl.sign("s3cret-signing-key", body.getBytes(StandardCharsets.UTF_8)),
          r.getHeaders().get("X-Colony-Signature-256"));
      assertTrue(body.contains("\"answer\":\"colony resume c/fixer\""), body);
      assertTrue(body.contains("\"link\":\"http://localhost:8233/namespaces/default/workflows/ant%2Fc%2Ffixer\""), body);
    }
  }
}
