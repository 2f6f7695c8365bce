package dev.colony.supervision;

import dev.colony.ant.AntWorkflow;
import dev.colony.chat.ChatActivities;
import dev.colony.chat.ChatPost;
import dev.colony.compat.Compatibility.Change;
import dev.colony.spec.AntIds;
import dev.colony.upgrade.Upgrade;
import dev.colony.webhook.WebhookActivities;
import dev.colony.webhook.WebhookDelivery;
import io.temporal.activity.ActivityOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import org.slf4j.Logger;

/**
 * The colony's supervisor. Failures arrive as signals; each is handled in arrival order on the
 * workflow's one thread: the group's breaker is asked, the strategy names the ants to restart, each
 * gets a {@code restart} signal, and every step is an event in the bounded log and a post.
 */
public class ColonyWorkflowImpl implements ColonyWorkflow {
  private final Upgrade upgrade = new Upgrade();
  private static final Logger log = Workflow.getLogger(ColonyWorkflowImpl.class);
  /** Events kept (the oldest are dropped first); also carried over continue-as-new. */
  public static final int MAX_EVENTS = 1_000;
  private static final int CONTINUE_AS_NEW_AFTER_FAILURES = 500;

  private final String colony;
  private final String alertsChannel;
  private final ColonyRun.Webhook webhook;
  private List<GroupSpec> groups;
  private final List<ColonyEvent> events = new ArrayList<>();
  private final RestartBreaker breaker;
  private final LinkedHashSet<String> failed = new LinkedHashSet<>();
  private long seq;
  private final List<AntFailure> inbox = new ArrayList<>();
  private final List<String> resets = new ArrayList<>();
  private long postSequence;
  /** Webhook deliveries not yet done (continue-as-new waits for them: they would be lost). */
  private int webhooksInFlight;
  private final ActivityOptions chatOptions = dev.colony.Activities.COLONY_CHAT_POST;
  /** The card this run last wrote; null until the first. */
  private ColonyCard card;
  /** New groups arrived: the card is rewritten. */
  private boolean groupsChanged;

  @io.temporal.workflow.WorkflowInit
  public ColonyWorkflowImpl(ColonyRun run) {
    this.colony = run.colony();
    this.alertsChannel = run.alertsChannel();
    this.webhook = run.webhook();
    this.groups = run.groups();
    this.events.addAll(run.events());
    this.breaker = new RestartBreaker(run.restarts());
    this.failed.addAll(run.failedGroups());
    this.seq = run.seq();
  }

  @Override
  public void run(ColonyRun run) {
    int handled = 0;
    Change.CONSOLE_CARD.require();
    publishCard();
    while (true) {
      Workflow.await(() -> !inbox.isEmpty() || !resets.isEmpty() || upgrade.due() || groupsChanged);
      groupsChanged = false;
      while (!resets.isEmpty()) {
        handleReset(resets.remove(0));
      }
      while (!inbox.isEmpty()) {
        handleFailure(inbox.remove(0));
        handled++;
      }
      publishCard();
      if (handled >= CONTINUE_AS_NEW_AFTER_FAILURES || Workflow.getInfo().isContinueAsNewSuggested() || upgrade.due()) {
        Workflow.await(() -> Workflow.isEveryHandlerFinished() && webhooksInFlight == 0);
        if (inbox.isEmpty() && resets.isEmpty()) {
          Upgrade.continueAsNew(new ColonyRun(colony, groups, alertsChannel, events, breaker.state(),
              List.copyOf(failed), seq, webhook));
          return;
        }
      }
    }
  }

  /**
   * Writes the console's card to the memo when it differs from the last one written: the groups
   * (declared, then the implicit ones that restarted or failed) with their breakers, and the last
   * events. Restarts are counted at this moment (the card also holds their times).
   */
  private void publishCard() {
    long now = Workflow.currentTimeMillis();
    List<ColonyCard.Group> shown = new ArrayList<>();
    LinkedHashSet<String> names = new LinkedHashSet<>();
    for (GroupSpec g : groups) {
      names.add(g.name());
      shown.add(group(g, now));
    }
    LinkedHashSet<String> implicit = new LinkedHashSet<>(breaker.state().keySet());
    implicit.addAll(failed);
    for (String name : implicit) {
      if (names.add(name)) {
        shown.add(group(GroupSpec.alone(name), now));
      }
    }
    List<ColonyEvent> last = new ArrayList<>();
    for (ColonyEvent e : events.subList(Math.max(0, events.size() - ColonyCard.EVENTS_SHOWN), events.size())) {
      String reason = e.reason() == null || e.reason().length() <= ColonyCard.REASON_CHARS ? e.reason()
          : dev.colony.text.SafeText.cut(e.reason(), ColonyCard.REASON_CHARS - 1) + "…";
      last.add(new ColonyEvent(e.seq(), e.atMillis(), e.type(), e.ant(), e.group(), e.strategy(), reason));
    }
    ColonyCard next = new ColonyCard(ColonyCard.VERSION, card == null ? 0 : card.revision(), shown, last);
    if (next.equals(card)) {
      return;
    }
    card = next.withRevision(card == null ? 1 : card.revision() + 1);
    java.util.Map<String, Object> memo = new java.util.LinkedHashMap<>();
    memo.put(ColonyCard.MEMO_KEY, card);
    Workflow.upsertMemo(memo);
  }

  private ColonyCard.Group group(GroupSpec g, long now) {
    List<Long> times = breaker.state().getOrDefault(g.name(), List.of()).stream()
        .filter(t -> t > now - g.windowSeconds() * 1000).toList();
    return new ColonyCard.Group(g.name(), g.strategy().configName(), g.ants(), times.size(), times, g.maxRestarts(),
        g.windowSeconds(), failed.contains(g.name()) ? "open" : "closed");
  }

  /** The group an ant belongs to: a declared one, or its own one_for_one group. */
  GroupSpec groupOf(String ant) {
    for (GroupSpec g : groups) {
      if (g.ants().contains(ant)) {
        return g;
      }
    }
    return GroupSpec.alone(ant);
  }

  private void handleFailure(AntFailure f) {
    GroupSpec g = groupOf(f.ant());
    String strategy = g.strategy().configName();
    record("agent_" + f.kind(), f.ant(), g.name(), strategy, f.reason());
    if (!f.callsForRestart()) {
      return;
    }
    if (failed.contains(g.name())) {
      record("agent_failed", f.ant(), g.name(), strategy, "group '" + g.name() + "' is failed: not restarted");
      return;
    }
    long now = Workflow.currentTimeMillis();
    if (!breaker.allow(g, now)) {
      failed.add(g.name());
      record("restart_limit_exceeded", null, g.name(), strategy, g.maxRestarts() + " restarts within "
          + g.windowSeconds() + "s: the group is failed until an operator resets it (colony resume --all)");
      record("agent_failed", f.ant(), g.name(), strategy, f.reason());
      return;
    }
    for (String ant : g.strategy().toRestart(g.ants(), f.ant())) {
      String why = ant.equals(f.ant()) ? f.reason() : f.ant() + " failed (" + strategy + ")";
      restart(ant, g, why);
    }
  }

  private void handleReset(String group) {
    List<GroupSpec> targets = new ArrayList<>();
    for (String name : List.copyOf(failed)) {
      if (group == null || group.equals(name)) {
        failed.remove(name);
        breaker.reset(name);
        GroupSpec g = groups.stream().filter(x -> x.name().equals(name)).findFirst().orElse(GroupSpec.alone(name));
        targets.add(g);
      }
    }
    for (GroupSpec g : targets) {
      record("group_reset", null, g.name(), g.strategy().configName(), "an operator reset the group");
      for (String ant : g.ants()) {
        restart(ant, g, "its group was reset by an operator");
      }
    }
  }

  private void restart(String ant, GroupSpec g, String why) {
    try {
      Workflow.newExternalWorkflowStub(AntWorkflow.class, AntIds.workflowId(colony, ant))
          .restart(new Restart(why, false));
      record("agent_restarted", ant, g.name(), g.strategy().configName(), why);
    } catch (RuntimeException e) {
      // The ant does not run (never started, or stopped): nothing to restart.
      record("restart_skipped", ant, g.name(), g.strategy().configName(), "not running: " + e.getMessage());
    }
  }

  private void record(String type, String ant, String group, String strategy, String reason) {
    ColonyEvent e = new ColonyEvent(++seq, Workflow.currentTimeMillis(), type, ant, group, strategy, reason);
    events.add(e);
    while (events.size() > MAX_EVENTS) {
      events.remove(0);
    }
    post(e.describe());
    notifyWebhook(e);
  }

  /**
   * Hands the event to the webhook activity without waiting for it: a slow or failing endpoint
   * retries on its own (for about an hour) and never holds up a restart.
   */
  private void notifyWebhook(ColonyEvent e) {
    if (webhook == null || webhook.url() == null) {
      return;
    }
    WebhookActivities hooks = Workflow.newActivityStub(WebhookActivities.class,
        ActivityOptions.newBuilder(dev.colony.Activities.WEBHOOK)
            .setSummary("webhook · " + e.type() + (e.ant() == null ? "" : " " + e.ant()))
            .build());
    webhooksInFlight++;
    io.temporal.workflow.Async.procedure(hooks::deliver,
        new WebhookDelivery(colony, webhook.colonyDir(), webhook.url(), webhook.secretVar(), e))
        .handle((ok, f) -> {
          webhooksInFlight--;
          if (f != null) {
            log.warn("webhook gave up on event {}: {}", e.seq(), f.getMessage());
          }
          return null;
        });
  }

  private void post(String text) {
    postSequence++;
    String key = Workflow.getInfo().getWorkflowId() + "/" + Workflow.getInfo().getRunId() + "/" + postSequence;
    ChatActivities chat = Workflow.newActivityStub(ChatActivities.class, chatOptions.toBuilder()
        .setSummary("post · " + dev.colony.chat.OperatorMessages.summary(text)).build());
    try {
      chat.post(new ChatPost(colony, "colony", alertsChannel, text, key, Workflow.currentTimeMillis()));
    } catch (ActivityFailure f) {
      log.warn("colony post {} not delivered: {}", key, f.getMessage());
    }
  }

  @Override
  public void antFailed(AntFailure failure) {
    if (failure != null && failure.ant() != null) {
      inbox.add(failure);
    }
  }

  @Override
  public void configure(List<GroupSpec> newGroups) {
    if (newGroups != null) {
      groups = List.copyOf(newGroups);
      groupsChanged = true;
    }
  }

  @Override
  public void upgrade() {
    upgrade.request();
  }

  @Override
  public void reset(String group) {
    resets.add(group);
  }

  @Override
  public List<ColonyEvent> events(long afterSeq) {
    return events.stream().filter(e -> e.seq() > afterSeq).toList();
  }

  @Override
  public List<String> failedGroups() {
    return List.copyOf(failed);
  }
}
