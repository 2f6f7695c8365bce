package dev.colony.sandbox.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** When a channel runs its client on python3: only one a sandbox can run, and the client with it. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PythonClientTest {
  @TempDir
  Path tmp;
  Path client;

  @BeforeEach
  void client() throws IOException {
    client = tmp.resolve(PythonClient.FILE);
    try (var in = ChannelClient.class.getResourceAsStream(PythonClient.FILE)) {
      Files.write(client, in.readAllBytes());
    }
  }

  @Test
  void aPythonThatIsNotThereOrNotUnderUsrIsNotUsed() throws IOException {
    assertEquals("no " + tmp.resolve("none"), PythonClient.problem(tmp.resolve("none"), client));
    Path link = Files.createSymbolicLink(tmp.resolve("python3"), PythonClient.PYTHON);
    String problem = PythonClient.problem(link, client);
    // Even a link to /usr's: the script runs the path, which a sandbox does not show.
    assertEquals(Files.isExecutable(PythonClient.PYTHON) ? link + " is not under /usr: a sandbox does not show it"
        : "no " + link, problem);
  }

  @Test
  void anInterpreterThatCannotRunTheClientIsSaidInOneLine() throws IOException {
    Path notPython = Files.writeString(tmp.resolve("python3"), "#!/bin/sh\necho 'Python 2.7: no -I'; exit 2\n");
    assertTrue(notPython.toFile().setExecutable(true));
    assertEquals(notPython + " cannot run the client (exit 2: Python 2.7: no -I)",
        PythonClient.probe(notPython, client, p -> true));
  }

  @Test
  void aPythonIsUsedOnlyWhenAllItLoadsIsWhatTheSandboxShows() {
    if (!Files.isExecutable(PythonClient.PYTHON)) {
      // No python3 on this machine: the check says so, and channels run the JVM client.
      assertEquals("no " + PythonClient.PYTHON, PythonClient.problem(PythonClient.PYTHON, client));
      return;
    }
    assertNull(PythonClient.probe(PythonClient.PYTHON, client, dev.colony.sandbox.Bubblewrap::shows));
    // The same interpreter, were libc outside what a sandbox shows: refused, naming the file.
    String problem = PythonClient.probe(PythonClient.PYTHON, client,
        p -> dev.colony.sandbox.Bubblewrap.shows(p) && !p.getFileName().toString().startsWith("libc.so"));
    assertTrue(problem != null && problem.startsWith(PythonClient.PYTHON + " loads /") && problem.contains("libc.so"),
        problem);
    // And were its standard library (the client's modules) outside: refused too.
    String lib = PythonClient.probe(PythonClient.PYTHON, client,
        p -> dev.colony.sandbox.Bubblewrap.shows(p) && !p.toString().matches(".*/python3[.0-9]*/.*"));
    assertTrue(lib != null && lib.startsWith(PythonClient.PYTHON + " loads /"), lib);
  }
}
