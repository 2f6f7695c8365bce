package dev.colony.config;

import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Reads every plain scalar as the text the user wrote. SnakeYAML follows YAML 1.1, where
 * {@code off} is false, {@code yes} is true, {@code 0123} is 83 and {@code 1:30} is 90: values that
 * silently change meaning ({@code tool_calls: off} refused as 'false', an ant named {@code yes}
 * becoming {@code true}). Colony parses each field itself, so only null ({@code ~}, {@code null},
 * an empty value) is resolved here; numbers and booleans are checked by the field that wants them.
 */
final class LiteralResolver extends Resolver {
  @Override
  protected void addImplicitResolvers() {
    addImplicitResolver(Tag.NULL, NULL, "~nN\0");
    addImplicitResolver(Tag.NULL, EMPTY, null);
  }
}
