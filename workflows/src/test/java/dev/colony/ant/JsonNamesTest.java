package dev.colony.ant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colony.errorpolicy.ErrorPolicy;
import dev.colony.overseer.EvaluationRequest;
import dev.colony.overseer.OverseerSpec;
import dev.colony.spec.AntSpec;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Java names changed (error policy, overseer) but the JSON that workflow inputs, results and
 * continue-as-new memories carry did not: committed histories and running ants still read.
 */
@Timeout(30)
class JsonNamesTest {
  private static final ObjectMapper JSON = JacksonJsonPayloadConverter.newDefaultObjectMapper();

  @Test
  void anAntSpecKeepsItsSupervisionAndSupervisorProperties() throws Exception {
    ErrorPolicy policy = new ErrorPolicy(2, 60, 5, 20);
    AntSpec spec = Fakes.withErrorPolicy(Fakes.spec("a"), policy).withOverseer(OverseerSpec.DEFAULTS);
    JsonNode tree = JSON.valueToTree(spec);
    assertTrue(tree.has("supervision"), tree.toString());
    assertTrue(tree.has("supervisor"), tree.toString());
    assertFalse(tree.has("errorPolicy"), tree.toString());
    assertFalse(tree.has("overseer"), tree.toString());

    AntSpec back = JSON.treeToValue(tree, AntSpec.class);
    assertEquals(policy, back.errorPolicy());
    assertEquals(OverseerSpec.DEFAULTS, back.overseer());
  }

  @Test
  void theMemoryKeepsItsOversightProperty() throws Exception {
    AntMemory m = JSON.readValue("{\"oversight\":{\"sinceEval\":3}}", AntMemory.class);
    assertNotNull(m.overseer());
    assertEquals(3, m.overseer().sinceEval());
    assertTrue(JSON.valueToTree(m).has("oversight"));
  }

  @Test
  void anEvaluationRequestAndAStatusKeepTheirSupervisorProperty() {
    var req = new EvaluationRequest("a", "/tmp", OverseerSpec.DEFAULTS, "task", List.of(), 0, null);
    assertTrue(JSON.valueToTree(req).has("supervisor"));
    assertTrue(JSON.valueToTree(req).path("supervisor").has("model"));
    var stats = new AntStats("a", 0, 0, 0, java.util.Map.of(), 0, 0, false, 0, 0, 0, 0, null, null, 0.5);
    assertEquals(0.5, JSON.valueToTree(stats).path("supervisorCostUsd").asDouble());
  }

  /**
   * The new names are read too (the compatibility ledger's "new name read since"), so that a later
   * release may write them while this one still reads what it writes.
   */
  @Test
  void theNewNamesAreReadBesideTheOldOnes() throws Exception {
    ErrorPolicy policy = new ErrorPolicy(2, 60, 5, 20);
    AntSpec spec = Fakes.withErrorPolicy(Fakes.spec("a"), policy).withOverseer(OverseerSpec.DEFAULTS);
    var tree = (com.fasterxml.jackson.databind.node.ObjectNode) JSON.valueToTree(spec);
    tree.set("errorPolicy", tree.remove("supervision"));
    tree.set("overseer", tree.remove("supervisor"));
    assertEquals(spec, JSON.treeToValue(tree, AntSpec.class));

    AntMemory m = JSON.readValue("{\"overseer\":{\"sinceEval\":3}}", AntMemory.class);
    assertEquals(3, m.overseer().sinceEval());
    AntStats stats = JSON.readValue("{\"overseerCostUsd\":1.5}", AntStats.class);
    assertEquals(1.5, stats.overseerCostUsd());
    assertTrue(JSON.valueToTree(stats).has("supervisorCostUsd"), "the old name is the one written");
    AntStatus status = JSON.readValue("{\"overseer\":\"on\"}", AntStatus.class);
    assertEquals("on", status.overseer());
    EvaluationRequest r = JSON.readValue("{\"overseer\":{\"model\":\"m\"}}", EvaluationRequest.class);
    assertEquals("m", r.overseer().model());
  }
}
