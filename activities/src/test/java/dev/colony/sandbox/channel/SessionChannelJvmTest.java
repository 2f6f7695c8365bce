package dev.colony.sandbox.channel;

import java.nio.file.Path;

/**
 * {@link SessionChannelTest} with the JVM client: the check looks for a python3 that is not there,
 * as on a worker without one.
 */
class SessionChannelJvmTest extends SessionChannelTest {
  @Override
  Path tried() {
    return Path.of("/nonexistent/usr/bin/python3");
  }

  @Override
  Path expected() {
    return null;
  }
}
