package dev.colony.discord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A post runs in a local activity with a 10 s timeout: whatever Discord answers, a call gives up
 * within {@link DiscordRest#WAIT_BUDGET_MILLIS} of waiting, with a failure Temporal retries.
 */
@Timeout(30)
class DiscordRestTest {
  /** Answers {@code failing} for its first {@link #LIMIT} requests, then succeeds. */
  private static final int LIMIT = 100;
  private final MockWebServer server = new MockWebServer();
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicLong now = new AtomicLong(1_000_000);
  private final List<Long> waits = new CopyOnWriteArrayList<>();
  private volatile MockResponse failing;
  private DiscordRest rest;

  @BeforeEach
  void setUp() throws IOException {
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest r) {
        return requests.incrementAndGet() <= LIMIT ? failing
            : new MockResponse.Builder().code(200).body("{\"id\":\"900000000000000001\"}").build();
      }
    });
    server.start(java.net.InetAddress.getLoopbackAddress(), 0);
    // Waiting only moves the clock: the test counts the waits instead of taking them.
    rest = new DiscordRest(new OkHttpClient(), "http://127.0.0.1:" + server.getPort() + "/api/v10/", "t",
        now::get, millis -> {
          waits.add(millis);
          now.addAndGet(millis);
        });
  }

  @AfterEach
  void tearDown() {
    server.close();
  }

  private long waited() {
    return waits.stream().mapToLong(Long::longValue).sum();
  }

  private void post() throws Exception {
    rest.post("900000000000000002", "hello", "n", List.of(), List.of());
  }

  @Test
  void a429ForEverIsWaitedOutWithinTheBudgetThenFails() {
    // retry_after 1.5 s: waits of 1.5 s fit three times in a 5 s budget; the fourth answer fails the call
    failing = new MockResponse.Builder().code(429).setHeader("Retry-After", "2")
        .body("{\"message\":\"You are being rate limited.\",\"retry_after\":1.5,\"global\":false}").build();
    IOException e = assertThrows(IOException.class, this::post);
    long perWait = 2000; // the larger of retry_after and the Retry-After header
    long budget = DiscordRest.WAIT_BUDGET_MILLIS;
    assertEquals(budget / perWait + 1, requests.get(), "requests made");
    assertEquals(budget / perWait * perWait, waited(), "waited in all: " + waits);
    assertTrue(waited() <= budget);
    assertTrue(e.getMessage().contains("rate limited by Discord") && e.getMessage().contains("retry after 2 s"),
        e.getMessage());
  }

  @Test
  void a5xxForEverIsRetriedWithinTheBudgetThenFailsForTemporalToRetry() {
    failing = new MockResponse.Builder().code(502).body("{\"message\":\"Bad Gateway\"}").build();
    IOException e = assertThrows(IOException.class, this::post);
    assertTrue(waited() <= DiscordRest.WAIT_BUDGET_MILLIS, "waited in all: " + waits);
    assertTrue(requests.get() >= 2 && requests.get() <= waits.size() + 1, requests.get() + " requests, waits " + waits);
    assertTrue(e.getMessage().contains("HTTP 502"), e.getMessage());
  }

  @Test
  void aShortRateLimitIsWaitedOutAndThePostGoesThrough() throws Exception {
    failing = new MockResponse.Builder().code(429).body("{\"retry_after\":0.3}").build();
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest r) {
        return requests.incrementAndGet() <= 2 ? failing
            : new MockResponse.Builder().code(200).body("{\"id\":\"900000000000000001\"}").build();
      }
    });
    post();
    assertEquals(3, requests.get());
    assertEquals(List.of(300L, 300L), waits);
  }
}
