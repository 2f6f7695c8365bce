package dev.colony.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.spec.AntSpec;
import dev.colony.spec.SandboxSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The {@code sandbox:} keys: what they mean, their defaults and inheritance, and each refusal (file, field, reason). */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class SandboxConfigTest {
  @TempDir
  Path tmp;

  private static final String ANT = "name: a\ndescription: d\ninstructions: i\nengine: command\ncommand:\n  argv: [\"true\"]\n";

  private Path colony(String defaults, String ant) throws IOException {
    Path dir = Files.createTempDirectory(tmp, "colony");
    Files.writeString(dir.resolve("colony.yaml"), "name: c\n" + (defaults.isEmpty() ? "" : "defaults:\n" + defaults));
    Files.createDirectories(dir.resolve("ants"));
    Files.writeString(dir.resolve("ants/a.yaml"), ANT + ant);
    return dir;
  }

  private SandboxSpec load(String defaults, String ant) throws Exception {
    AntSpec a = new ColonyLoader(Map.of("GH", "x", "NPM_TOKEN", "y")).loadDir(colony(defaults, ant)).ant("a").orElseThrow();
    return SandboxSpec.of(a);
  }

  private String error(String defaults, String ant) throws Exception {
    Path dir = colony(defaults, ant);
    return assertThrows(ConfigException.class, () -> new ColonyLoader(Map.of()).loadDir(dir)).getMessage();
  }

  @Test
  void onByDefaultWithNoNetworkAndLimits() throws Exception {
    SandboxSpec s = load("", "");
    assertEquals(SandboxSpec.DEFAULTS, s);
    assertTrue(!s.off() && !s.networkOpen() && s.allow().isEmpty());
    assertEquals(2L << 30, s.memoryBytes());
    assertEquals(1024, s.processes());
  }

  @Test
  void everyKeyIsRead() throws Exception {
    SandboxSpec s = load("", "sandbox:\n  network:\n    allow: [api.github.com, \"10.0.0.5:8080\", \"*.npmjs.org\"]\n"
        + "  secrets: [GH, \"${NPM_TOKEN}\"]\n  memory: 4g\n  processes: 2048\n  read: [/opt/tools, shared]\n"
        + "  write: [logs]\n");
    assertEquals(List.of("api.github.com", "10.0.0.5:8080", "*.npmjs.org"), s.allow());
    assertEquals(List.of("GH", "NPM_TOKEN"), s.secrets());
    assertEquals(4L << 30, s.memoryBytes());
    assertEquals(2048, s.processes());
    assertEquals(List.of("/opt/tools", "shared"), s.read());
    assertEquals(List.of("logs"), s.write());
    assertTrue(load("", "sandbox:\n  network: open\n").networkOpen());
    assertEquals(0, load("", "sandbox:\n  memory: off\n  processes: off\n").memoryBytes());
  }

  @Test
  void offIsAnExplicitOptOutAndAnAntCanTurnItBackOn() throws Exception {
    assertTrue(load("", "sandbox: off\n").off());
    assertTrue(load("  sandbox: off\n", "").off(), "the colony's defaults");
    assertEquals(SandboxSpec.DEFAULTS, load("  sandbox: off\n", "sandbox: on\n"));
    SandboxSpec back = load("  sandbox: off\n", "sandbox:\n  memory: 1g\n");
    assertTrue(!back.off() && back.memoryBytes() == 1L << 30);
    SandboxSpec inherited = load("  sandbox:\n    write: [logs]\n", "sandbox:\n  memory: 1g\n");
    assertEquals(List.of("logs"), inherited.write(), "an ant's settings go over the defaults'");
  }

  @Test
  void badValuesNameTheFileTheFieldAndTheReason() throws Exception {
    String e = error("", "sandbox: maybe\n");
    assertTrue(e.contains("ants/a.yaml") && e.contains("sandbox") && e.contains("expected on, off or a mapping"), e);
    e = error("", "sandbox:\n  network: everywhere\n");
    assertTrue(e.contains("sandbox.network") && e.contains("expected open, none or a mapping"), e);
    e = error("", "sandbox:\n  network:\n    allow: [\"http://x.com/\", \"h:99999\"]\n");
    assertTrue(e.contains("sandbox.network.allow[0]") && e.contains("invalid host 'http://x.com/'"), e);
    assertTrue(e.contains("sandbox.network.allow[1]"), e);
    e = error("", "sandbox:\n  secrets: [\"not a name\"]\n");
    assertTrue(e.contains("sandbox.secrets[0]") && e.contains("invalid variable name"), e);
    e = error("", "sandbox:\n  memory: 10m\n");
    assertTrue(e.contains("sandbox.memory") && e.contains("at least 64m"), e);
    e = error("", "sandbox:\n  memory: lots\n");
    assertTrue(e.contains("sandbox.memory") && e.contains("invalid size 'lots'"), e);
    e = error("", "sandbox:\n  processes: 3\n");
    assertTrue(e.contains("sandbox.processes") && e.contains("at least 16"), e);
    e = error("", "sandbox:\n  write: [.colony, ../elsewhere, .env]\n  read: [/, ants/x.yaml]\n");
    assertTrue(e.contains("sandbox.write[0]") && e.contains("the colony's own .colony"), e);
    assertTrue(e.contains("sandbox.write[1]") && e.contains("outside it"), e);
    assertTrue(e.contains("sandbox.write[2]") && e.contains("own .env"), e);
    assertTrue(e.contains("sandbox.read[0]") && e.contains("whole file system"), e);
    assertTrue(e.contains("sandbox.read[1]") && e.contains("own ants"), e);
    e = error("", "sandbox:\n  netwrok: open\n");
    assertTrue(e.contains("netwrok"), e);
  }
}
