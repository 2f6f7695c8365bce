package dev.colony.cli;

import io.grpc.StatusRuntimeException;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

/**
 * Tells the operator, in one line each, when a worker loses its Temporal server and when it has
 * it again. The SDK keeps retrying by itself; its per-poll stack traces are silenced (see
 * {@link Logging}) and shown only with --verbose.
 */
final class ConnectionWatch extends Thread {
  private static final long EVERY_MS = 2000;
  private final Temporal temporal;
  private final PrintStream err;

  private ConnectionWatch(Temporal temporal, PrintStream err) {
    super("colony-connection-watch");
    setDaemon(true);
    this.temporal = temporal;
    this.err = err;
  }

  static ConnectionWatch start(Temporal temporal, PrintStream err) {
    ConnectionWatch watch = new ConnectionWatch(temporal, err);
    watch.start();
    return watch;
  }

  @Override
  public void run() {
    boolean up = true;
    long lostAt = 0;
    while (!isInterrupted()) {
      try {
        Thread.sleep(EVERY_MS);
        temporal.stubs.blockingStub().withDeadlineAfter(EVERY_MS, TimeUnit.MILLISECONDS)
            .getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
        if (!up) {
          up = true;
          err.printf("colony: connected to Temporal at %s again (after %ds); the worker carries on%n",
              temporal.address, (System.currentTimeMillis() - lostAt) / 1000);
        }
      } catch (StatusRuntimeException e) {
        if (isInterrupted() || e.getStatus().getCode() == io.grpc.Status.Code.CANCELLED) {
          return; // the worker is stopping
        }
        if (up) {
          up = false;
          lostAt = System.currentTimeMillis();
          err.printf("colony: lost the connection to Temporal at %s (%s); retrying until it is back%n",
              temporal.address, e.getStatus().getCode());
        }
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        // stubs shut down: the worker is stopping
        return;
      }
    }
  }
}
