package dev.colony.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.spec.AntSpec;
import dev.colony.spec.TaskPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code tasks:} in an ant's file and in colony.yaml, folded into the ant's {@link TaskPolicy}. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class TaskConfigTest {
  @TempDir
  Path tmp;

  private static final String ANT = "name: a\ndescription: d\ninstructions: do it\n";

  private Path colony(String colonyYaml, String antYaml) throws IOException {
    Path dir = Files.createTempDirectory(tmp, "colony");
    Files.writeString(dir.resolve("colony.yaml"), colonyYaml);
    Files.createDirectories(dir.resolve("ants"));
    Files.writeString(dir.resolve("ants/a.yaml"), antYaml);
    return dir;
  }

  private AntSpec ant(String colonyYaml, String antYaml) throws Exception {
    return new ColonyLoader(Map.of()).loadDir(colony(colonyYaml, antYaml)).ants().get(0);
  }

  private String errors(String colonyYaml, String antYaml) throws Exception {
    Path dir = colony(colonyYaml, antYaml);
    return assertThrows(ConfigException.class, () -> new ColonyLoader(Map.of()).loadDir(dir)).getMessage();
  }

  @Test
  void theAntsBlockWithTheColonysRulesFoldedIn() throws Exception {
    AntSpec a = ant("name: c\ntasks:\n  ants_may_finish: true\n  aging: 30m\n",
        ANT + "tasks:\n  takes: [docs, '*', backend, docs]\n  when_idle: wait\n  max_tries: 5\n");
    assertEquals(new TaskPolicy(List.of("docs", "*", "backend"), true, 5, true, 1800), a.tasks());
  }

  @Test
  void defaultsWithAnEmptyBlockAndNoPolicyWithoutOne() throws Exception {
    assertEquals(new TaskPolicy(List.of(), false, 3, false, 3600), ant("name: c\n", ANT + "tasks: {}\n").tasks());
    assertNull(ant("name: c\n", ANT).tasks(), "no tasks: block, default colony rules: no policy");
    assertNull(ant("name: c\ntasks:\n  aging: 1h\n", ANT).tasks(), "the colony's defaults written out");
    assertEquals(new TaskPolicy(List.of(), false, 3, true, 3600),
        ant("name: c\ntasks:\n  ants_may_finish: true\n", ANT).tasks(),
        "rules that matter reach an ant without a block (for the tasks assigned to it by name)");
  }

  @Test
  void badValuesNameTheFileTheKeyAndWhatIsWrong() throws Exception {
    String e = errors("name: c\n", ANT + "tasks:\n  takes: [docs, 'bad pool!']\n  when_idle: sleep\n  max_tries: 0\n"
        + "  colour: red\n");
    assertTrue(e.contains("ants/a.yaml") && e.contains("tasks.takes") && e.contains("'bad pool!' is not a pool name"), e);
    assertTrue(e.contains("tasks.when_idle") && e.contains("expected \"work\" or \"wait\""), e);
    assertTrue(e.contains("tasks.max_tries") && e.contains("greater than 0"), e);
    assertTrue(e.contains("colour"), e);
    assertTrue(errors("name: c\n", ANT + "tasks:\n  max_tries: 101\n").contains("between 1 and 100"));
    String c = errors("name: c\ntasks:\n  ants_may_finish: maybe\n  aging: 10s\n", ANT);
    assertTrue(c.contains("colony.yaml") && c.contains("tasks.ants_may_finish") && c.contains("expected true or false"), c);
    assertTrue(c.contains("tasks.aging") && c.contains("at least 1m"), c);
  }
}
