package dev.colony.cli;

import org.junit.jupiter.api.Timeout;
import java.util.concurrent.TimeUnit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

@Timeout(value = 2, unit = TimeUnit.MINUTES)
class CliTest {
  @TempDir
  Path tmp;

  record Result(int code, String out, String err) {}

  /**
   * Runs {@code args} as the resident process runs a caller's command ({@link ColonyCli#run} under an
   * {@link dev.colony.secrets.Invocation} of this JVM's environment and directory, its own streams
   * and secrets), which FastPathIT proves answers as a JVM of the command's own does.
   */
  static Result run(String... args) {
    var out = new java.io.ByteArrayOutputStream();
    var err = new java.io.ByteArrayOutputStream();
    var caller = new dev.colony.secrets.Invocation(System.getenv(), Path.of("").toAbsolutePath());
    int code;
    try (var o = new dev.colony.worker.RedactingPrintStream(out, caller.registry());
        var e = new dev.colony.worker.RedactingPrintStream(err, caller.registry())) {
      code = dev.colony.secrets.Invocation.call(caller, () -> ColonyCli.run(args, CliContext.standard(), o, e, false));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return new Result(code, out.toString(java.nio.charset.StandardCharsets.UTF_8), err.toString(java.nio.charset.StandardCharsets.UTF_8));
  }

  private Path colony(String colonyYaml, String antFile, String antYaml) throws IOException {
    Path dir = Files.createTempDirectory(tmp, "c");
    Files.writeString(dir.resolve("colony.yaml"), colonyYaml);
    Files.createDirectories(dir.resolve("ants"));
    Files.writeString(dir.resolve("ants").resolve(antFile), antYaml);
    return dir;
  }

  @Test
  void thePrebuiltHelpIsTheCommandTreesOwn() {
    String prebuilt = HelpText.prebuilt();
    org.junit.jupiter.api.Assertions.assertNotNull(prebuilt, "the build renders colony-help.txt into the classes");
    assertEquals(HelpText.render(), prebuilt);
    assertTrue(prebuilt.startsWith("Usage: colony [-hvV] [COMMAND]"), prebuilt);
  }

  @Test
  void aTemporalStatusWrappedInTheSdksExceptionIsFoundAndNamed() {
    io.grpc.StatusRuntimeException grpc = io.grpc.Status.DEADLINE_EXCEEDED
        .withDescription("context deadline exceeded").asRuntimeException();
    RuntimeException wrapped = new io.temporal.client.WorkflowServiceException(
        io.temporal.api.common.v1.WorkflowExecution.newBuilder().setWorkflowId("ant/c/a").build(), "AntWorkflow", grpc);
    assertEquals(grpc, ColonyCli.grpcCause(new IllegalStateException(wrapped)));
    assertEquals(null, ColonyCli.grpcCause(new IllegalStateException("no gRPC here")));
  }

  @Test
  void validateExitsZeroOnTheHelloExample() {
    Result r = run("validate", "../examples/hello");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().startsWith("colony 'hello' is valid: 2 ants, chat on the console"), r.out());
  }

  @Test
  void validateExitsOneNamingFileAndFieldWithoutAStackTrace() throws IOException {
    Path dir = colony("name: broken\n", "worker.yaml",
        "name: worker\ndescription: d\ninstructions: i\npoll_interval: 1h30m\nengine: gpt\n");
    Result r = run("validate", dir.toString());
    assertEquals(1, r.code());
    assertEquals("", r.out());
    assertTrue(r.err().startsWith("colony: Validation failed: Invalid ants/worker.yaml:\n"), r.err());
    assertTrue(r.err().contains("  poll_interval: invalid duration '1h30m'"), r.err());
    assertTrue(r.err().contains("  engine: invalid value 'gpt'"), r.err());
    assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
  }

  @Test
  void validateReportsAMissingVariableInTheReferenceFormat() throws IOException {
    Path dir = colony("name: c\nintegrations:\n  discord:\n    token: ${COLONY_TEST_UNSET_TOKEN}\n    guild: g\n",
        "a.yaml", "name: a\ndescription: d\ninstructions: i\nintegrations:\n  discord:\n    channel: x\n");
    Result r = run("validate", dir.toString());
    assertEquals(1, r.code());
    assertTrue(r.err().contains("Validation failed: Invalid colony.yaml:\n"
        + "  integrations.discord.token: Missing environment variable: COLONY_TEST_UNSET_TOKEN"), r.err());
  }

  @Test
  void validateWarnsAboutAValueTooShortToMaskAndRefusesAReferenceInAStoredField() throws IOException {
    Path dir = colony("name: c\n", "a.yaml", "name: a\ndescription: d\ninstructions: i\nengine: command\n"
        + "command:\n  argv: [\"./x\"]\n  env:\n    PORT: ${COLONY_TEST_PORT}\n");
    Files.writeString(dir.resolve(".env"), "COLONY_TEST_PORT=80\nCOLONY_TEST_CHANNEL=general-secret\n");
    Result ok = run("validate", dir.toString());
    assertEquals(0, ok.code(), ok.err());
    assertTrue(ok.err().contains("warning: ${COLONY_TEST_PORT} is shorter than 4 characters"), ok.err());
    Files.writeString(dir.resolve("ants/a.yaml"), "name: a\ndescription: d\ninstructions: i\n"
        + "integrations:\n  discord:\n    channel: ${COLONY_TEST_CHANNEL}\n");
    Result bad = run("validate", dir.toString());
    assertEquals(1, bad.code());
    assertTrue(bad.err().contains("integrations.discord.channel: '${COLONY_TEST_CHANNEL}' cannot be used here"), bad.err());
    assertFalse(bad.err().contains("general-secret"), bad.err());
  }

  @Test
  void aBudgetOnAnEngineThatReportsNoCostIsAWarning() throws IOException {
    Path dir = colony("name: c\ndefaults:\n  budget:\n    daily_usd: 5\n",
        "g.yaml", "name: g\ndescription: d\ninstructions: i\nengine: gemini\n");
    Files.writeString(dir.resolve("ants/k.yaml"),
        "name: k\ndescription: d\ninstructions: i\nengine: command\ncommand:\n  argv: [\"./x\"]\n");
    Files.writeString(dir.resolve(".env"), "GEMINI_API_KEY=not-a-real-key\n");
    Result r = run("validate", dir.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.err().contains("warning: ant 'g' has a budget; engine gemini reports tokens, not cost: its spend "
        + "is estimated at gemini-2.5-pro's list price ($1.25 in, $10.00 out per million tokens); set gemini.price for yours."),
        r.err());
    assertTrue(r.err().contains("warning: ant 'k' has a budget; engine command knows a session's cost only when "
        + "the agent prints a line 'COLONY_COST_USD=<amount>'"), r.err());
  }

  @Test
  void initCreatesAColonyThatValidatesAndNeverOverwrites() throws IOException {
    for (String engine : List.of("claude", "gemini", "command")) {
      Path dir = tmp.resolve("init-" + engine);
      Result r = run("init", dir.toString(), "--engine", engine);
      assertEquals(0, r.code(), r.err());
      assertTrue(r.out().contains("./colony validate " + dir), r.out());
      Result v = run("validate", dir.toString());
      assertEquals(0, v.code(), engine + ": " + v.err());
      assertEquals(".env\n.colony/\n", Files.readString(dir.resolve(".gitignore")));
      assertTrue(Files.exists(dir.resolve(".env.example")));
      // Editors find the schema from the first line of each file.
      assertTrue(Files.readString(dir.resolve("colony.yaml"))
          .startsWith("# yaml-language-server: $schema=schema/colony.schema.json\n"));
      assertTrue(Files.readString(dir.resolve("ants/worker.yaml"))
          .startsWith("# yaml-language-server: $schema=../schema/ant.schema.json\n"));
      assertEquals(run("schema", "ant").out(), Files.readString(dir.resolve("schema/ant.schema.json")));
      assertEquals(run("schema").out(), Files.readString(dir.resolve("schema/colony.schema.json")));
    }
    Result schema = run("schema", "ant");
    assertEquals(0, schema.code(), schema.err());
    assertTrue(schema.out().contains("\"poll_interval\"") && schema.out().contains("\"additionalProperties\" : false"),
        schema.out());
    Result bad = run("schema", "queen");
    assertEquals(2, bad.code());
    Path dir = tmp.resolve("init-command");
    String before = Files.readString(dir.resolve("ants/worker.yaml"));
    Result again = run("init", dir.toString());
    assertEquals(1, again.code());
    assertTrue(again.err().contains("not overwriting colony.yaml"), again.err());
    assertEquals(before, Files.readString(dir.resolve("ants/worker.yaml")));
    Result d = run("init", tmp.resolve("init-discord").toString(), "--discord");
    assertEquals(0, d.code(), d.err());
    assertTrue(Files.readString(tmp.resolve("init-discord/.env.example")).contains("DISCORD_TOKEN="));
  }

  @Test
  void aBadHostNameOrCacheSizeIsRefusedBeforeAnythingStarts() {
    // 127.0.0.1:1 has no server: the refusal comes first, without a connection attempt.
    Result r = run("worker", "../examples/hello", "--host", "bad/host\u001b[2J", "--address", "127.0.0.1:1");
    assertEquals(1, r.code());
    assertTrue(r.err().contains("invalid --host 'bad/host\\u001b[2J'"), r.err());
    assertFalse(r.err().contains("Exception"), r.err());
    Result c = run("worker", "../examples/hello", "--cache-size", "0", "--address", "127.0.0.1:1");
    assertEquals(1, c.code());
    assertTrue(c.err().contains("invalid --cache-size 0"), c.err());
  }

  @Test
  void aColonyWithoutAntsValidatesButCannotStart() throws IOException {
    Path dir = Files.createTempDirectory(tmp, "empty");
    Files.writeString(dir.resolve("colony.yaml"), "name: empty\n");
    Result v = run("validate", dir.toString());
    assertEquals(0, v.code(), v.err());
    assertTrue(v.err().contains("warning: no ants yet"), v.err());
    Result s = run("start", dir.toString(), "--address", "127.0.0.1:1");
    assertEquals(1, s.code());
    assertTrue(s.err().contains("has no ants to run"), s.err());
  }

  @Test
  void validateOnAMissingDirectoryIsAnError() {
    Result r = run("validate", tmp.resolve("nope").toString());
    assertEquals(1, r.code());
    assertTrue(r.err().contains("not a directory"), r.err());
  }

  @Test
  void usageErrorsExitTwo() {
    assertEquals(2, run("validate").code());
    assertEquals(2, run("frobnicate").code());
    assertEquals(2, run("status", "--no-such-flag").code());
  }

  /** As main runs it: a one-shot command gets a root with only that subcommand. */
  static Result runAsMain(String... args) {
    CommandLine cl = ColonyCli.commandLine(args);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    return new Result(cl.execute(args), out.toString(), err.toString());
  }

  @Test
  void theConsoleRefusesAPublicAddressWithoutATokenInOneLine() {
    // Refused before connecting: the address of Temporal here answers nothing.
    Result r = run("console", "../examples/hello", "--bind", "0.0.0.0", "--address", "127.0.0.1:1");
    assertEquals(1, r.code(), r.out() + r.err());
    assertTrue(r.err().startsWith("colony: refusing to serve the console on 0.0.0.0 without a token"), r.err());
    assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
    Result shortToken = run("console", "../examples/hello", "--bind", "0.0.0.0", "--token", "short", "--address", "127.0.0.1:1");
    assertEquals(1, shortToken.code(), shortToken.err());
    assertTrue(shortToken.err().contains("too short"), shortToken.err());
  }

  @Test
  void helpOfACommandThatDoesNotExistIsAnUnknownCommandNotTheHelp() {
    // ("task" was the example here until `colony task` came: "board" is not a command)
    for (String[] args : List.of(new String[] {"dashboard", "--help"}, new String[] {"board", "--help"},
        new String[] {"--help", "dashboard"}, new String[] {"board", "-h"})) {
      for (Result r : List.of(run(args), runAsMain(args))) {
        String what = String.join(" ", args) + ": " + r.out() + r.err();
        assertEquals(2, r.code(), what);
        assertEquals("", r.out(), what);
        assertTrue(r.err().startsWith("colony: unknown command '" + (args[0].startsWith("-") ? args[1] : args[0]) + "'"), what);
        assertEquals(1, r.err().strip().lines().count(), "one line: " + what);
      }
    }
    // An argument too many for a real command is named too, with its command.
    Result extra = runAsMain("status", "--help", "a", "b");
    assertEquals(2, extra.code(), extra.out() + extra.err());
    assertTrue(extra.err().startsWith("colony: unexpected argument 'b' for 'colony status'"), extra.err());
  }

  @Test
  void upgradeRefusesAWaitItCannotCountAsAUsageError() {
    for (String wait : List.of("9223372036854775807", "9223372036854", "31536000")) {
      Result r = run("upgrade", "--build-id", "b2", "--wait", wait, "--address", "127.0.0.1:1");
      assertEquals(2, r.code(), wait + ": " + r.err());
      assertTrue(r.err().startsWith("colony: invalid --wait " + wait + ": "), r.err());
      assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
    }
  }

  @Test
  void everyCommandHasHelp() {
    for (String cmd : List.of("validate", "dev", "server", "worker", "start", "run", "status", "pause",
        "resume", "send", "stop", "clear", "approve", "deny")) {
      Result r = run(cmd, "--help");
      assertEquals(0, r.code(), cmd);
      assertTrue(r.out().contains("Usage: colony " + cmd), cmd + ": " + r.out());
    }
  }

  @Test
  void commandsThatConnectTakeAddressAndNamespace() {
    for (String cmd : List.of("worker", "start", "run", "status", "pause", "resume", "send", "stop", "approve", "deny")) {
      String help = run(cmd, "--help").out();
      assertTrue(help.contains("--address") && help.contains("--namespace"), cmd + ": " + help);
    }
  }

  @Test
  void anUnreachableServerIsOneClearLine() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Result r = run("status", "--address", "127.0.0.1:" + port);
    assertEquals(1, r.code());
    assertTrue(r.err().startsWith("colony: cannot reach Temporal at 127.0.0.1:" + port), r.err());
    assertEquals(1, r.err().strip().lines().count(), r.err());
    Result pause = run("pause", "worker", "--address", "127.0.0.1:" + port);
    assertEquals(1, pause.code());
    assertTrue(pause.err().contains("cannot reach Temporal"), pause.err());
  }

  @Test
  void everyMalformedAddressIsOneLineAndExitTwo() {
    record Case(String address, String says) {}
    for (Case c : List.of(
        new Case("localhost:99999", "the port must be a number from 1 to 65535"),
        new Case("localhost:notaport", "the port must be a number from 1 to 65535"),
        new Case("http://localhost:7233", "has a scheme: give host:port without it"),
        new Case("localhost", "is not host:port"),
        new Case("", "--address is empty"))) {
      Result r = run("status", "--address", c.address());
      assertEquals(2, r.code(), c.address() + ": " + r.err());
      assertTrue(r.err().contains(c.says()), c.address() + ": " + r.err());
      assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
      assertFalse(r.err().contains("Exception"), r.err());
    }
  }

  @Test
  void anUnknownHostIsOneLineNamingIt() {
    Result r = run("status", "--address", "no-such-host.invalid:7233");
    assertEquals(1, r.code(), r.err());
    assertTrue(r.err().contains("cannot reach Temporal at no-such-host.invalid:7233 (unknown host no-such-host.invalid)"), r.err());
    assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
  }
}
