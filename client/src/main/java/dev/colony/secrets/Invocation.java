package dev.colony.secrets;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The caller a command runs for: its environment, its working directory and its own secrets.
 *
 * <p>A command run by a {@code colony} process of its own sees that process's: {@link #env()} is
 * {@code System.getenv()}, {@link #resolve(Path)} leaves a relative path relative (the JVM resolves
 * it against its own working directory) and {@link #secrets()} is {@link Secrets#process()}'s
 * registry. The resident process (one JVM that answers many short commands, each sent by a thin
 * client from some terminal) runs each command on a thread of its own {@link #call with} the
 * caller's environment, directory and a fresh registry, so one caller's variables, paths and
 * secrets never reach another's command.
 *
 * <p>Only the thread that runs the command sees its invocation (not threads it starts): code
 * that reads the environment, resolves a path a person typed or registers a secret does so on the
 * command's own thread.
 */
public final class Invocation {
  private static final ThreadLocal<Invocation> CURRENT = new ThreadLocal<>();

  private final Map<String, String> env;
  private final Path cwd;
  private final Secrets secrets;

  /** A caller: {@code env} (copied), {@code cwd} (absolute), a registry of its own. */
  public Invocation(Map<String, String> env, Path cwd) {
    if (!cwd.isAbsolute()) {
      throw new IllegalArgumentException("the caller's directory must be absolute: " + cwd);
    }
    this.env = Map.copyOf(env);
    this.cwd = cwd;
    this.secrets = new Secrets();
  }

  /** The invocation of the command running on this thread; null in a process of its own. */
  public static Invocation current() {
    return CURRENT.get();
  }

  /** Runs {@code work} on this thread as {@code invocation}'s. */
  public static <T> T call(Invocation invocation, Callable<T> work) throws Exception {
    Invocation before = CURRENT.get();
    CURRENT.set(invocation);
    try {
      return work.call();
    } finally {
      if (before == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(before);
      }
    }
  }

  /** The caller's environment. */
  public static Map<String, String> env() {
    Invocation i = CURRENT.get();
    return i == null ? System.getenv() : i.env;
  }

  /** One variable of the caller's environment; null when unset. */
  public static String env(String name) {
    Invocation i = CURRENT.get();
    return i == null ? System.getenv(name) : i.env.get(name);
  }

  /** {@code path} as the caller meant it: a relative one against the caller's directory. */
  public static Path resolve(Path path) {
    Invocation i = CURRENT.get();
    return i == null || path == null || path.isAbsolute() ? path : i.cwd.resolve(path);
  }

  /** The caller's secrets: those of this process, or the invocation's own. */
  public static Secrets secrets() {
    Invocation i = CURRENT.get();
    return i == null ? Secrets.processRegistry() : i.secrets;
  }

  /** This invocation's environment (the caller's, as it came). */
  public Map<String, String> environment() {
    return env;
  }

  /** This invocation's directory. */
  public Path directory() {
    return cwd;
  }

  /** This invocation's registry of secrets. */
  public Secrets registry() {
    return secrets;
  }

  /**
   * Thrown by a command the resident process cannot run as its own process would (it would read a
   * file the caller named relative to its directory through a library that knows only this
   * process's): the resident process then answers nothing and the thin client runs the command in
   * a process of its own. Thrown before the command has printed or changed anything.
   */
  public static final class OwnProcessNeeded extends RuntimeException {
    public OwnProcessNeeded(String why) {
      super(why, null, false, false);
    }
  }
}
