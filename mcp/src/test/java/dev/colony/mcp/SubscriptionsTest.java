package dev.colony.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Who is subscribed, over a server's sessions: a URI is watched from its first subscriber to its
 * last, whatever the number of sessions; a session's end drops all of its subscriptions; a body
 * naming a session the server never began, or a URI never notified, changes nothing; a session
 * follows at most {@value Subscriptions#MAX_PER_SESSION} URIs.
 */
@Timeout(30)
class SubscriptionsTest {
  static final String ALPHA = "colony://ant/alpha/live";
  final List<String> told = new CopyOnWriteArrayList<>();
  final Subscriptions subs = new Subscriptions(new Subscriptions.Listener() {
    @Override
    public void watched(String uri) {
      told.add("+" + uri);
    }

    @Override
    public void unwatched(String uri) {
      told.add("-" + uri);
    }
  });

  static String body(String method, String uri) {
    return "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"" + method + "\",\"params\":{\"uri\":\"" + uri + "\"}}";
  }

  @Test
  void aUriIsWatchedFromItsFirstSubscriberToItsLast() {
    subs.begin("s1");
    subs.begin("s2");
    subs.request("s1", body("resources/subscribe", ALPHA));
    subs.request("s2", body("resources/subscribe", ALPHA));
    subs.request("s2", body("resources/subscribe", ALPHA)); // twice: once
    subs.request("s2", body("resources/subscribe", "colony://inbox"));
    assertEquals(List.of("+" + ALPHA, "+colony://inbox"), told);
    subs.request("s1", body("resources/unsubscribe", ALPHA));
    assertEquals(2, told.size(), "s2 still listens to alpha: " + told);
    subs.end("s2");
    assertEquals(List.of("+" + ALPHA, "+colony://inbox", "-" + ALPHA, "-colony://inbox"), told);
  }

  @Test
  void anUnknownSessionAUriNeverToldOrABadBodyChangesNothing() {
    subs.request("forged", body("resources/subscribe", ALPHA));
    subs.begin("s1");
    for (String never : List.of("colony://ant/alpha/config", "colony://task/t1", "colony://ant/not a name/live")) {
      String refused = subs.request("s1", body("resources/subscribe", never));
      assertTrue(refused != null && refused.contains("\"code\":-32602") && refused.contains("\"id\":7"),
          "answered as the protocol's error, never recorded by the SDK: " + refused);
    }
    subs.request("s1", "{not json subscribe");
    subs.request("s1", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/subscribe\",\"params\":{}}");
    assertEquals(List.of(), told);
    subs.end("s1");
    subs.request("s1", body("resources/subscribe", ALPHA));
    assertEquals(List.of(), told, "a request of an ended session counts no more");
  }

  @Test
  void aSessionFollowsABoundedNumberOfUris() {
    subs.begin("s1");
    for (int i = 0; i < Subscriptions.MAX_PER_SESSION; i++) {
      assertEquals(null, subs.request("s1", body("resources/subscribe", "colony://ant/ant-" + i + "/live")));
    }
    String refused = subs.request("s1", body("resources/subscribe", "colony://ant/one-more/live"));
    assertTrue(refused != null && refused.contains("at most " + Subscriptions.MAX_PER_SESSION), String.valueOf(refused));
    assertEquals(null, subs.request("s1", body("resources/subscribe", "colony://ant/ant-0/live")), "again: taken");
    assertEquals(Subscriptions.MAX_PER_SESSION, told.size());
  }
}
