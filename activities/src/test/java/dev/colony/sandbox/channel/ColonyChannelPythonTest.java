package dev.colony.sandbox.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ColonyChannelTest}'s tests through the channel's own script, as a session runs it: here
 * python3's client ({@code channel_client.py}). On a worker without a python3 the sandbox can run,
 * the channel chose the JVM, and these tests check that instead.
 */
@org.junit.jupiter.api.Timeout(value = 60, unit = java.util.concurrent.TimeUnit.SECONDS)
class ColonyChannelPythonTest extends ColonyChannelTest {
  Path scripts;
  Path script;

  @BeforeEach
  void script() throws IOException {
    scripts = Files.createTempDirectory("colony-channel-test-");
    script = ClientProcess.script(channel, channel.python(), scripts);
  }

  @AfterEach
  void removeScript() throws IOException {
    try (var files = Files.walk(scripts)) {
      for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(f);
      }
    }
  }

  @Override
  Answer client(String... args) {
    ClientProcess.Ran r = ClientProcess.run(script, channel.socket().toString(), ClientProcess.bytes(args));
    return new Answer(r.code(), r.outText().strip(), r.errText().strip());
  }

  @Test
  void theChannelRunsItsClientOnTheWorkersPythonWhenTheSandboxCanRunIt() throws IOException {
    String problem = PythonClient.problem(PythonClient.PYTHON, channel.code().resolve(PythonClient.FILE));
    String written = Files.readString(channel.client(), StandardCharsets.UTF_8);
    if (Files.isExecutable(PythonClient.PYTHON) && problem == null) {
      assertEquals(PythonClient.PYTHON, channel.python());
      assertEquals("#!/bin/sh\nexec '/usr/bin/python3' -I -S -X utf8 '/run/colony/lib/channel_client.py' \"$@\"\n", written);
    } else {
      // No python3 here that a sandbox runs: the channel fell back to the JVM, and these tests ran it.
      assertNull(channel.python(), problem);
      assertTrue(written.contains(ChannelClient.class.getName()), written);
    }
    assertTrue(Files.exists(channel.code().resolve(PythonClient.FILE)), "the python client is beside the class");
  }
}
