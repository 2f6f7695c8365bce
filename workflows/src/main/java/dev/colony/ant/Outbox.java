package dev.colony.ant;

import dev.colony.chat.ChatActivities;
import dev.colony.chat.ChatPost;
import dev.colony.chat.OperatorMessages;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;

/**
 * The ant's chat posts. They leave in order, one at a time, from a single workflow thread, each
 * as a local activity (it runs in the worker of the workflow task that sent it) with an
 * idempotency key, so a retried post is never shown twice.
 */
final class Outbox {
  private static final Logger log = Workflow.getLogger(Outbox.class);

  private final AntState ant;
  private final List<ChatPost> posts = new ArrayList<>();

  Outbox(AntState ant) {
    this.ant = ant;
  }

  /** Starts the thread that delivers the posts. */
  void start() {
    Async.procedure(this::deliver);
  }

  void say(String text) {
    say(text, null);
  }

  /** A post about task {@code taskId} waiting for a human (In Review, Blocked): the chat adds its buttons. */
  void say(String text, String taskId) {
    long sequence = ant.chat.next();
    String key = Workflow.getInfo().getWorkflowId() + "/" + Workflow.getInfo().getRunId() + "/" + sequence;
    posts.add(new ChatPost(ant.spec().colony(), ant.spec().name(), ant.spec().discordChannel(), text, key,
        Workflow.currentTimeMillis(), taskId));
  }

  boolean isEmpty() {
    return posts.isEmpty();
  }

  private void deliver() {
    while (true) {
      Workflow.await(() -> !posts.isEmpty());
      ChatPost post = posts.get(0);
      try {
        chat(post).post(post);
      } catch (ActivityFailure f) {
        log.warn("giving up on chat post {} after retries: {}", post.idempotencyKey(), Texts.rootMessage(f));
      }
      posts.remove(0);
    }
  }

  private static ChatActivities chat(ChatPost post) {
    // Timeouts and retries, and why: Activities.ANT_CHAT_POST.
    return Workflow.newLocalActivityStub(ChatActivities.class, LocalActivityOptions.newBuilder(dev.colony.Activities.ANT_CHAT_POST)
        .setSummary("post · " + OperatorMessages.summary(post.text()))
        .build());
  }
}
