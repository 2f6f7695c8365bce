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

  /** The builders leave the records alone: their JSON (workflow inputs, continue-as-new) names the components only, by their wire names. */
  @Test
  void theWireShapeOfSpecAndMemoryIsTheirComponents() throws Exception {
    assertEquals(components(AntSpec.class), jsonKeys(Specs.ant("wire").build()));
    AntMemory memory = AntMemory.builder().sessions(3).pauseReason("operator").paused(true).build();
    assertEquals(components(AntMemory.class), jsonKeys(memory));
    assertEquals(memory, memory.toBuilder().build());
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
