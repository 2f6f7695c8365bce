package dev.colony.sandbox.channel;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@link ColonyChannelTest}'s tests through the channel's script when the worker has no python3
 * (the check pointed at a path that is not there): the JVM client, the fallback.
 */
@org.junit.jupiter.api.Timeout(value = 2, unit = java.util.concurrent.TimeUnit.MINUTES)
class ColonyChannelJvmTest extends ColonyChannelPythonTest {
  @Override
  Path python() {
    return Path.of("/nonexistent/usr/bin/python3");
  }

  @Override
  int floodClients() {
    return 16; // a JVM each: enough to find the channel busy
  }

  @Override
  @Test
  void theChannelRunsItsClientOnTheWorkersPythonWhenTheSandboxCanRunIt() throws IOException {
    assertNull(channel.python());
    String written = Files.readString(channel.client(), StandardCharsets.UTF_8);
    assertTrue(written.startsWith("#!/bin/sh\nLC_ALL=C.UTF-8\nexport LC_ALL\nexec '"), written);
    assertTrue(written.endsWith(" -cp '/run/colony/lib' " + ChannelClient.class.getName() + " \"$@\"\n"), written);
    assertTrue(PythonClient.problem(python(), channel.code().resolve(PythonClient.FILE)).startsWith("no "));
  }
}
