package dev.colony.console;

import dev.colony.client.ColonySource;
import dev.colony.client.FakeSource;
import dev.colony.client.FakeMergeSource;
import static dev.colony.testing.Eventually.eventually;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.secrets.Secrets;
import dev.colony.overseer.Turn;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import okhttp3.Call;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Live push: changes reach open pages, one upstream poll serves them all, nobody watching costs nothing. */
@Timeout(60)
class LiveEventsTest {
  final FakeSource source = new FakeSource();
  final Secrets secrets = new Secrets();
  final OkHttpClient http = new OkHttpClient.Builder().readTimeout(Duration.ZERO).build();
  final List<Stream> streams = new ArrayList<>();
  ConsoleServer server;

  /** One open event stream, its lines collected by a thread of its own. */
  final class Stream {
    final List<String> lines = new CopyOnWriteArrayList<>();
    final Call call;

    Stream(String path) {
      call = http.newCall(new Request.Builder().url(server.url() + path).header("Accept", "text/event-stream").build());
      Thread.ofVirtual().start(() -> {
        try (Response r = call.execute();
            BufferedReader in = new BufferedReader(new InputStreamReader(r.body().byteStream(), StandardCharsets.UTF_8))) {
          lines.add("status " + r.code() + " " + r.header("Content-Type"));
          for (String line; (line = in.readLine()) != null; ) {
            lines.add(line);
          }
          lines.add("closed"); // the server ended the stream
        } catch (Exception closed) {
          lines.add("closed");
        }
      });
      streams.add(this);
    }

    boolean saw(String text) {
      return lines.stream().anyMatch(l -> l.contains(text));
    }

    void close() {
      call.cancel();
    }
  }

  void start(Duration keepAlive) {
    source.put(FakeSource.row("alpha", 1, "waiting for the next tick"));
    source.put(FakeSource.row("beta", 1, "waiting"));
    server = ConsoleServer.start(ConsoleServer.Options.defaults().withBind("127.0.0.1", 0)
        .withTiming(Duration.ofMillis(100), keepAlive), source, secrets);
  }

  @AfterEach
  void stop() {
    streams.forEach(Stream::close);
    if (server != null) {
      server.close();
    }
  }

  @Test
  void nobodyWatchingMeansNoCallsToTemporal() throws Exception {
    // A closed page is noticed when a write to it fails: the keep-alive comment, here every 200 ms.
    start(Duration.ofMillis(200));
    await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(3)).until(() -> source.calls() == 0);
    Stream s = new Stream("/api/events");
    eventually(() -> source.changedSinceCalls.get() >= 2, "the poller runs while a page is open");
    s.close();
    eventually(() -> viewers() == 0, "the closed page is forgotten");
    long after = source.calls();
    await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(3)).until(() -> source.calls() == after);
  }

  private long viewers() {
    try (Response r = http.newCall(new Request.Builder().url(server.url() + "/api/metrics").build()).execute()) {
      return Views.MAPPER.readTree(r.body().string()).get("viewers").asLong();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void aChangeIsPushedToAnOpenPageWithCountsAndInbox() {
    start(Duration.ofSeconds(15));
    Stream s = new Stream("/api/events");
    eventually(() -> s.saw("status 200 text/event-stream"), "the stream opens");
    eventually(() -> source.changedSinceCalls.get() >= 2, "the poller runs");
    source.put(FakeSource.row("alpha", 2, "session 4 running"));
    eventually(dev.colony.testing.Eventually.DEFAULT, () -> s.saw("session 4 running"), () -> "the new card is pushed; got " + s.lines);
    // How soon is a benchmark's business (bench/console); here: pushed, without a reload.
    assertTrue(s.saw("event: ant"), s.lines.toString());
    eventually(dev.colony.testing.Eventually.DEFAULT, () -> s.saw("event: colony") && s.saw("event: inbox"), () -> "counts and inbox follow: " + s.lines);
    assertTrue(source.countsCalls.get() >= 1, "the pushed counts are visibility counts, read when something changed");
  }

  @Test
  void oneUpstreamPollServesEveryPage() {
    start(Duration.ofSeconds(15));
    List<Stream> pages = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      pages.add(new Stream("/api/events"));
    }
    eventually(() -> pages.stream().allMatch(p -> p.saw("status 200")), "every stream opens");
    eventually(() -> viewers() == 5, "every page is attached");
    long before = source.changedSinceCalls.get();
    source.put(FakeSource.row("beta", 7, "revision seven"));
    eventually(() -> pages.stream().allMatch(p -> p.saw("revision seven")), "every page gets the change");
    eventually(() -> source.changedSinceCalls.get() >= before + 10, "the poller goes on");
    long polls = source.changedSinceCalls.get() - before;
    // 5 pages, one poller: at 100 ms a poll, 10 polls take about a second; 5 pollers would make 50.
    assertTrue(polls < 25, "upstream polls for 5 pages: " + polls);
  }

  @Test
  void anAntPageGetsItsTurnsFromOneFollower() {
    start(Duration.ofSeconds(15));
    Stream a = new Stream("/api/events?ant=alpha");
    Stream b = new Stream("/api/events?ant=alpha");
    Stream other = new Stream("/api/events?ant=beta");
    eventually(() -> a.saw("status 200") && b.saw("status 200") && other.saw("status 200"), "the streams open");
    // Waiting with a cursor: a follower still taking its first cursor would count the turn as read already.
    eventually(() -> source.waiting.get() >= 2, "one follower per watched ant waits");
    source.addTurns("alpha", Turn.tool("Bash", "make test", "BUILD SUCCESS", false));
    eventually(dev.colony.testing.Eventually.DEFAULT, () -> a.saw("make test") && b.saw("make test"), () -> "both alpha pages get the turn: " + a.lines);
    assertTrue(a.saw("event: turns"), a.lines.toString());
    assertTrue(source.maxFollowing.get() <= 2, "followers at once: " + source.maxFollowing.get());
    assertTrue(other.lines.stream().noneMatch(l -> l.contains("make test")), "beta's page gets no alpha turns");
  }

  @Test
  void aBadAntNameOnTheStreamIsRefused() {
    start(Duration.ofSeconds(15));
    Stream s = new Stream("/api/events?ant=../etc");
    eventually(dev.colony.testing.Eventually.DEFAULT, () -> s.saw("event: error"), () -> "refused: " + s.lines);
    eventually(() -> s.saw("closed"), "the refused stream is closed");
    assertEquals(0, source.following.get(), "a refused name is followed");
  }

  @Test
  void theStreamNeedsATokenWhenTheConsoleHasOne() {
    source.put(FakeSource.row("alpha", 1, "x"));
    server = ConsoleServer.start(ConsoleServer.Options.defaults().withBind("127.0.0.1", 0)
        .withTokens(ConsoleServerTest.TOKEN, null), source, secrets);
    Stream s = new Stream("/api/events");
    eventually(dev.colony.testing.Eventually.DEFAULT, () -> s.saw("status 401"), () -> "refused: " + s.lines);
    assertEquals(0, source.calls(), "no call for a refused stream");
  }

  @Test
  void anIdleStreamGetsKeepAliveComments() {
    start(Duration.ofMillis(200));
    Stream s = new Stream("/api/events");
    eventually(dev.colony.testing.Eventually.DEFAULT, () -> s.saw(": keep-alive"), () -> "a comment keeps the stream open: " + s.lines);
  }

  @Test
  void aStuckPageIsDroppedAndTheOthersGoOn() throws Exception {
    source.put(FakeSource.row("alpha", 1, "x"));
    Views views = new Views(secrets, "hello", "default", null);
    try (LiveHub hub = new LiveHub(source, null, views, Duration.ofMillis(20), Duration.ofSeconds(15), 8)) {
      CountDownLatch never = new CountDownLatch(1);
      AtomicBoolean stuckClosed = new AtomicBoolean();
      List<String> fast = new CopyOnWriteArrayList<>();
      hub.attach(new LiveHub.Sink() {
        @Override
        public boolean send(String event, String data) {
          try {
            never.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return false;
        }

        @Override
        public boolean comment(String text) {
          return true;
        }

        @Override
        public void close() {
          stuckClosed.set(true);
        }
      }, null);
      hub.attach(new LiveHub.Sink() {
        @Override
        public boolean send(String event, String data) {
          fast.add(data);
          return true;
        }

        @Override
        public boolean comment(String text) {
          return true;
        }

        @Override
        public void close() {
        }
      }, null);
      for (int rev = 2; rev < 20; rev++) {
        source.put(new ColonySource.Row("alpha", "waiting", false, null, rev, 0, 0, null, null, false, null,
            FakeSource.card(rev, "rev " + rev), true, System.currentTimeMillis()));
        int r = rev;
        eventually(dev.colony.testing.Eventually.DEFAULT, () -> fast.stream().anyMatch(d -> d.contains("rev " + r)), () -> "the fast page keeps up: " + fast + " viewers " + hub.viewers() + " polls " + hub.polls());
      }
      eventually(stuckClosed::get, "the stuck page is dropped");
      assertEquals(1, hub.viewers());
      never.countDown();
    }
  }

  @Test
  void mergePagesGetTheQueuesFromOneSharedReadAndOnlyWhileOneIsOpen() throws Exception {
    FakeMergeSource merges = new FakeMergeSource();
    merges.put(FakeMergeSource.card("app", List.of(
        FakeMergeSource.item("alpha-2", "alpha", dev.colony.merge.ItemState.QUEUED, null, 0, null, null, 60_000)), List.of(), java.util.Map.of(), java.util.Map.of(), java.util.Map.of()));
    source.put(FakeSource.row("alpha", 1, "x"));
    server = ConsoleServer.start(ConsoleServer.Options.defaults().withBind("127.0.0.1", 0)
        .withTiming(Duration.ofMillis(100), Duration.ofMillis(200)), source, null, merges, secrets);
    Stream plain = new Stream("/api/events");
    eventually(() -> plain.saw("status 200"), "a page without the queues opens");
    eventually(() -> source.changedSinceCalls.get() >= 3, "the poller runs");
    assertEquals(0L, merges.calls.getOrDefault("cards", 0L), "no page shows the queues: they are not read");
    List<Stream> pages = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      pages.add(new Stream(i % 2 == 0 ? "/api/events?merge=1" : "/api/events?tasks=1&merge=1"));
    }
    eventually(() -> pages.stream().allMatch(p -> p.saw("status 200")), "the merge pages open");
    merges.put(FakeMergeSource.card("app", List.of(
        FakeMergeSource.item("alpha-2", "alpha", dev.colony.merge.ItemState.LANDING, "testing now", 0, null, null, 60_000)), List.of(), java.util.Map.of(), java.util.Map.of(), java.util.Map.of()));
    eventually(dev.colony.testing.Eventually.DEFAULT, () -> pages.stream().allMatch(p -> p.saw("event: merge") && p.saw("testing now")),
        () -> "every merge page gets the changed card: " + pages.get(0).lines);
    assertTrue(plain.lines.stream().noneMatch(l -> l.contains("event: merge")), "a page without the queues gets none");
    long before = merges.calls.getOrDefault("cards", 0L);
    long polls = source.changedSinceCalls.get();
    eventually(() -> source.changedSinceCalls.get() >= polls + 30, "the poller goes on (30 polls, 3 s or more)");
    long reads = merges.calls.getOrDefault("cards", 0L) - before;
    // 4 pages: one read every 2 s for all of them (each page polled /api/merge every 2 or 5 s before).
    assertTrue(reads >= 1 && reads <= 3, "reads of the queues in 30 polls for 4 pages: " + reads);
    pages.forEach(Stream::close);
    eventually(() -> viewers() == 1, "the merge pages are forgotten");
    long after = merges.calls.getOrDefault("cards", 0L);
    await().during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(5)).until(() -> merges.calls.getOrDefault("cards", 0L) == after);
  }
}
