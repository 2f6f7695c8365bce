package dev.colony.console;

import dev.colony.client.ColonySource;
import dev.colony.client.FakeSource;
import static dev.colony.testing.Eventually.eventually;

import dev.colony.secrets.Secrets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class LiveHubTest {
  final FakeSource source = new FakeSource();
  final Views views = new Views(new Secrets(), "hello", "default", null);

  /** A page: the newest text each ant's row was pushed with. */
  static final class Page implements LiveHub.Sink {
    final Map<String, String> doing = new ConcurrentHashMap<>();

    @Override
    public boolean send(String event, String data) {
      try {
        var node = Views.MAPPER.readTree(data);
        for (var r : event.equals("ants") ? node.get("rows") : Views.MAPPER.createArrayNode().add(node)) {
          if (r.has("name") && r.has("card") && r.get("card").has("doing")) {
            doing.put(r.get("name").asText(), r.get("card").get("doing").asText());
          }
        }
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      return true;
    }

    @Override
    public boolean comment(String text) {
      return true;
    }

    @Override
    public void close() {}
  }

  @Test
  void fiveThousandAntsChangedInOneWindowAllReachThePage() {
    for (int i = 0; i < 5000; i++) {
      source.put(FakeSource.row(String.format("ant-%04d", i), 1, "before"));
    }
    try (LiveHub hub = new LiveHub(source, null, views, Duration.ofMillis(50), Duration.ofSeconds(15), 1024)) {
      Page page = new Page();
      hub.attach(page, null);
      eventually(() -> source.changedSinceCalls.get() >= 2, "the poller runs");
      long now = System.currentTimeMillis();
      for (int i = 0; i < 5000; i++) {
        // all in one window, most with the same AntUpdatedAt
        source.put(new ColonySource.Row(String.format("ant-%04d", i), "waiting", false, null, 3, 0, 0, null, "host1",
            false, "success", FakeSource.card(2, "after " + i), true, now + (i % 3)));
      }
      eventually(dev.colony.testing.Eventually.DEFAULT, () -> page.doing.values().stream().filter(d -> d.startsWith("after ")).count() == 5000,
          () -> "every changed ant reaches the page; got " + page.doing.values().stream().filter(d -> d.startsWith("after ")).count()
              + " of 5000");
    }
  }

  @Test
  void antsChangedWhileThePagesAreReadAreInTheNextWindow() {
    source.pageSize = 100;
    for (int i = 0; i < 1000; i++) {
      source.put(FakeSource.row(String.format("ant-%04d", i), 1, "before"));
    }
    try (LiveHub hub = new LiveHub(source, null, views, Duration.ofMillis(50), Duration.ofSeconds(15), 1024)) {
      Page page = new Page();
      hub.attach(page, null);
      eventually(() -> page.doing.size() == 1000, "the first window is pushed");
      // While the poller pages, an ant whose page it has read already changes: each page read changes the first ant again.
      java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
      source.beforePage = () -> {
        int k = n.incrementAndGet();
        if (k <= 30) {
          source.put(new ColonySource.Row("ant-0000", "waiting", false, null, 3, 0, 0, null, "host1", false, "success",
              FakeSource.card(10 + k, "change " + k), true, System.currentTimeMillis()));
        }
      };
      eventually(dev.colony.testing.Eventually.DEFAULT, () -> "change 30".equals(page.doing.get("ant-0000")),
          () -> "the last change of an ant changed mid-read reaches the page; it shows " + page.doing.get("ant-0000"));
    }
  }

  @Test
  void antsChangedLongBeforeTheNewestInTheSameWindowAreNotSkipped() {
    for (int i = 0; i < 3000; i++) {
      source.put(FakeSource.row(String.format("ant-%04d", i), 1, "before"));
    }
    try (LiveHub hub = new LiveHub(source, null, views, Duration.ofMillis(50), Duration.ofSeconds(15), 1024)) {
      Page page = new Page();
      hub.attach(page, null);
      eventually(() -> source.changedSinceCalls.get() >= 4, "the poller runs");
      long now = System.currentTimeMillis();
      // The first page (by name) holds the newest changes; the others changed a minute before them.
      for (int i = 2999; i >= 0; i--) {
        source.put(new ColonySource.Row(String.format("ant-%04d", i), "waiting", false, null, 3, 0, 0, null, "host1",
            false, "success", FakeSource.card(2, "after " + i), true, i < 1000 ? now + 60_000 : now));
      }
      eventually(dev.colony.testing.Eventually.DEFAULT, () -> page.doing.values().stream().filter(d -> d.startsWith("after ")).count() == 3000,
          () -> "the older changes are read before the cursor moves; got "
              + page.doing.values().stream().filter(d -> d.startsWith("after ")).count() + " of 3000");
    }
  }
}
