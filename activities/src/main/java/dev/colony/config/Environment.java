package dev.colony.config;

import io.github.cdimascio.dotenv.Dotenv;
import io.github.cdimascio.dotenv.DotenvEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The variables {@code ${VAR}} resolves against: the caller's environment ({@code Invocation}), with the colony
 * directory's {@code .env} file filling in what the environment does not set.
 */
public final class Environment {
  private Environment() {}

  public static Map<String, String> forColony(Path colonyDir) {
    Map<String, String> env = new HashMap<>();
    Path dotenv = colonyDir.resolve(".env");
    if (Files.isRegularFile(dotenv)) {
      Dotenv loaded = Dotenv.configure()
          .directory(colonyDir.toString())
          .filename(".env")
          .ignoreIfMalformed()
          .load();
      for (DotenvEntry e : loaded.entries(Dotenv.Filter.DECLARED_IN_ENV_FILE)) {
        env.put(e.getKey(), e.getValue());
      }
    }
    env.putAll(dev.colony.secrets.Invocation.env());
    return env;
  }
}
