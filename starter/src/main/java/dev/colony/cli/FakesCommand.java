package dev.colony.cli;

import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * A fake Slack (Web API and Socket Mode) and a fake ntfy on loopback, so a colony wired to Slack
 * and ntfy runs offline (examples/slack-ntfy). The fakes (and the mock web server under them) are
 * not in this jar, which is also the worker's: this command loads them from the fakes module's own
 * jar, built beside it.
 */
@Command(name = "fakes", mixinStandardHelpOptions = true,
    description = "Run a fake Slack and a fake ntfy on loopback, to try a Slack/ntfy colony offline "
        + "(see examples/slack-ntfy). Prints what the ants post and push; type what a human does in Slack.")
final class FakesCommand implements Callable<Integer> {
  static final String TERMINAL = "dev.colony.fakes.FakesTerminal";

  @Option(names = "--slack-port", defaultValue = "7340", description = "The fake Slack's port (default: ${DEFAULT-VALUE}).")
  int slackPort;

  @Option(names = "--ntfy-port", defaultValue = "7341", description = "The fake ntfy's port (default: ${DEFAULT-VALUE}).")
  int ntfyPort;

  @Override
  public Integer call() throws Exception {
    Path jar = fakesJar();
    if (!Files.isRegularFile(jar)) {
      System.err.println("colony fakes: " + jar + " is missing; build it with ./mvnw -q -DskipTests package "
          + "(./colony builds it when the sources change)");
      return 1;
    }
    try (URLClassLoader fakes = new URLClassLoader(new URL[] {jar.toUri().toURL()}, FakesCommand.class.getClassLoader())) {
      return (Integer) fakes.loadClass(TERMINAL).getMethod("serve", int.class, int.class).invoke(null, slackPort, ntfyPort);
    } catch (InvocationTargetException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  /** fakes/target/colony-fakes.jar of the checkout this CLI runs from (starter/target/colony.jar or starter/target/classes). */
  static Path fakesJar() throws Exception {
    Path self = Path.of(FakesCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    return self.getParent().getParent().getParent().resolve("fakes/target/colony-fakes.jar");
  }
}
