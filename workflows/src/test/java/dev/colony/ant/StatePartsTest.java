package dev.colony.ant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colony.spec.AntSpec;
import dev.colony.testing.Specs;
import dev.colony.trigger.IssueEvent;
import io.temporal.common.converter.DefaultDataConverter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The small owned parts of an ant's state, and the builders of its spec and memory. */
@Timeout(30)
class StatePartsTest {

  @Test
  void aWakeRequestEndsOnlyTheWaitItArrivedFor() {
    WakeRequests wakes = new WakeRequests();
    assertFalse(wakes.sinceWaitScheduled());
    wakes.request(); // e.g. a pause during the session, before its backoff is scheduled
    wakes.waitScheduled();
    assertFalse(wakes.sinceWaitScheduled(), "a request from before the wait does not end it");
    wakes.request();
    wakes.request();
    assertTrue(wakes.sinceWaitScheduled(), "a request during the wait ends it");
    wakes.waitScheduled();
    assertFalse(wakes.sinceWaitScheduled(), "nothing is left set for the next wait");
  }

  @Test
  void anIssueTakenAndGivenBackIsFirstInLineAndStaysKnown() {
    IssueIntake issues = new IssueIntake(List.of(), List.of(), 2);
    IssueEvent a = new IssueEvent("acme/app", 1, "a", "u", List.of(), null);
    IssueEvent b = new IssueEvent("acme/app", 2, "b", "u", List.of(), null);
    issues.offer(a);
    issues.offer(b);
    assertEquals(a, issues.take());
    assertTrue(issues.known(a.key()));
    issues.giveBack();
    assertNull(issues.taken());
    assertEquals(List.of(a, b), issues.pending());
    assertEquals(a, issues.take());
    issues.done();
    assertEquals(b, issues.take());
    assertEquals(List.of("acme/app#1", "acme/app#2"), issues.handledKeys());
  }

  @Test
  void aSplitBatchGoesOneAtATimeUntilEachIsSettled() {
    Delivery d = new Delivery(0, 0);
    assertEquals(1, d.failedOnce());
    assertEquals(2, d.failedOnce());
    d.oneAtATime(2);
    assertEquals(0, d.failures());
    assertTrue(d.alone());
    d.oneSettled();
    d.oneSettled();
    d.oneSettled();
    assertFalse(d.alone());
  }

  @Test
  void statsCountOnlyRealCost() {
    SessionStats s = new SessionStats(0);
    assertFalse(s.addCost(0));
    assertFalse(s.addCost(Double.NaN));
    assertFalse(s.costReported());
    assertTrue(s.addCost(0.25));
    s.recordOutcome("success", "ok");
    s.recordOutcome("success", "ok again");
    s.addUsage(3, 10, 20);
    assertEquals(Map.of("success", 2), s.sessionsByOutcome());
    assertEquals("ok again", s.lastDetail());
    assertEquals(0.25, s.costUsd());
    assertEquals(30, s.inputTokens() + s.outputTokens());
  }

  @Test
  void aSpecRebuiltKeepsEverySetting() {
    AntSpec spec = Specs.ant("full").cron("0 * * * *").timezone("Europe/Paris").pollIntervalSeconds(7)
        .githubRepos(List.of("acme/app")).errorPolicy(Fakes.spec("x").errorPolicy()).build();
    assertEquals(spec, spec.toBuilder().build());
    assertEquals(spec, Fakes.withPoll(Fakes.withErrorPolicy(spec, spec.errorPolicy()), 7));
    assertEquals("Europe/Paris", Fakes.withPoll(spec, 9).timezone());
  }

  /** The spec's builder leaves the record alone: its JSON (workflow inputs) names the components only, by their wire names. */
  @Test
  void theWireShapeOfTheSpecIsItsComponents() throws Exception {
    assertEquals(components(AntSpec.class), jsonKeys(Specs.ant("wire").build()));
  }

  /**
   * A memory written before the ant's parts owned their memories (by the code of release 1.5 with
   * every fact set: no committed history continues as new, so it was written by that code's data
   * converter) reads into the same facts, part by part, and is written back key for key: older
   * code reads what this code carries across continue-as-new, and this code reads theirs.
   */
  @Test
  void aMemoryOfTheOldShapeReadsIntoTheSameFactsAndIsWrittenBackTheSame() throws Exception {
    String old = java.nio.file.Files.readString(java.nio.file.Path.of("src/test/resources/memory/ant-memory-1.5.json"));
    var converter = DefaultDataConverter.STANDARD_INSTANCE;
    AntMemory m = converter.fromPayload(io.temporal.api.common.v1.Payload.newBuilder()
        .putMetadata("encoding", com.google.protobuf.ByteString.copyFromUtf8("json/plain"))
        .setData(com.google.protobuf.ByteString.copyFromUtf8(old)).build(), AntMemory.class, AntMemory.class);
    assertEquals(new AntState.Loop(150, 2, 10, 1_764_400_000_000L, WaitKind.RATE_LIMITED, 1_764_500_000_000L, true,
        "host-a"), m.loop());
    assertEquals(new PauseRequest.Memory(true, "billing", 1_764_300_000_000L), m.pause());
    assertEquals(List.of("fix the docs", "then the tests"), m.mailbox().queue());
    assertEquals(List.of("stop touching main"), m.mailbox().urgentQueue());
    assertEquals(List.of("discord:1", "slack:2"), m.mailbox().mailIds());
    assertEquals(new ChatSequence.Memory(301, true), m.chat());
    assertEquals(new SessionStats.Memory("rate_limit", "429", 1_764_000_000_000L,
        Map.of("success", 140, "transient", 8, "rate_limit", 2), 6000, 42.5, true, 3_000_000, 600_000), m.stats());
    assertEquals(new Delivery.Memory(1, 2), m.delivery());
    assertEquals(List.of("acme/app#7", "acme/app#8"), m.issues().handledIssues());
    assertEquals(9, m.issues().pendingIssues().get(0).number());
    assertEquals(new Conversation.Memory("conv-150"), m.conversation());
    assertEquals(99, m.card().cardRevision());
    assertEquals("429 too many requests", m.card().lastError());
    assertEquals(150, m.card().recent().get(0).number());
    assertEquals("k7m2qx", m.taskSlot().task().id());
    assertEquals(3, m.taskSlot().taskClaims());
    assertEquals("ant/test/alpha#4", m.taskSlot().claimToken());
    assertEquals(42.5, m.spend().monthUsd());
    assertEquals(7, m.ledger().get(0).sessions());
    assertEquals(3, m.overseer().sinceEval());
    assertEquals("pause-billing", m.notices().get(0).need());
    assertEquals("beta", m.merge().waitingFor());
    assertEquals("alpha-3", m.merge().rework().itemId());

    // Restored into the ant's parts and carried again, the memory is the one it read.
    var mapper = new ObjectMapper();
    assertEquals(mapper.readTree(old),
        mapper.readTree(converter.toPayload(m).orElseThrow().getData().toString(StandardCharsets.UTF_8)));
    assertEquals(new TreeSet<>(iterable(mapper.readTree(old).fieldNames())), jsonKeys(m));
  }

  /** The memory's JSON is flat: every part's component names one key, shared with no other part nor with the record's own. */
  @Test
  void noTwoFactsOfTheMemoryShareAJsonName() {
    List<String> names = new java.util.ArrayList<>();
    for (var c : AntMemory.class.getRecordComponents()) {
      if (c.getAccessor().isAnnotationPresent(com.fasterxml.jackson.annotation.JsonUnwrapped.class)
          || c.isAnnotationPresent(com.fasterxml.jackson.annotation.JsonUnwrapped.class)) {
        names.add(c.getName()); // not written, but a key of that name would be read as this part
        names.addAll(components(c.getType().asSubclass(Record.class)));
      } else {
        names.addAll(components(AntMemory.class).stream().filter(n -> n.equals(c.getName())
            || (c.getAccessor().isAnnotationPresent(com.fasterxml.jackson.annotation.JsonProperty.class)
                && n.equals(c.getAccessor().getAnnotation(com.fasterxml.jackson.annotation.JsonProperty.class).value())))
            .toList());
      }
    }
    assertEquals(new TreeSet<>(names).size(), names.size(), "a JSON name used twice in " + names);
  }

  private static <T> List<T> iterable(java.util.Iterator<T> it) {
    List<T> out = new java.util.ArrayList<>();
    it.forEachRemaining(out::add);
    return out;
  }

  private static Set<String> components(Class<? extends Record> type) {
    return Arrays.stream(type.getRecordComponents())
        .map(c -> c.getAccessor().isAnnotationPresent(com.fasterxml.jackson.annotation.JsonProperty.class)
            ? c.getAccessor().getAnnotation(com.fasterxml.jackson.annotation.JsonProperty.class).value() : c.getName())
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static Set<String> jsonKeys(Object value) throws Exception {
    var payload = DefaultDataConverter.STANDARD_INSTANCE.toPayload(value).orElseThrow();
    var tree = new ObjectMapper().readTree(payload.getData().toString(StandardCharsets.UTF_8));
    Set<String> keys = new TreeSet<>();
    tree.fieldNames().forEachRemaining(keys::add);
    return keys;
  }
}
