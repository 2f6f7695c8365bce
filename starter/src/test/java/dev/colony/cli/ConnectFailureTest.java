package dev.colony.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 1, unit = TimeUnit.MINUTES)
class ConnectFailureTest {
  private static final ClientProfile LOCAL = ClientProfile.plain("127.0.0.1:7233", "default");

  @Test
  void aServerThatTookTheConnectionButDidNotAnswerIsNotCalledAbsent() {
    String said = ConnectFailure.explain(Status.DEADLINE_EXCEEDED.withDescription("deadline exceeded after 14.9s")
        .asRuntimeException(), LOCAL);
    assertEquals("Temporal at 127.0.0.1:7233 accepted the connection but did not answer within 15 s: it is starting "
        + "or too busy, or the address is not a Temporal frontend's (--address / TEMPORAL_ADDRESS).", said);
  }

  @Test
  void aServerThatRefusedTheConnectionIsToldToBeStarted() {
    String said = ConnectFailure.explain(Status.UNAVAILABLE.withDescription("io exception").asRuntimeException(), LOCAL);
    assertTrue(said.startsWith("cannot reach Temporal at 127.0.0.1:7233 (UNAVAILABLE). Start one with './colony server'"),
        said);
  }
}
