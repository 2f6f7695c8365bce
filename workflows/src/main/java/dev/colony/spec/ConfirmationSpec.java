package dev.colony.spec;

import java.util.List;

/** Extra detection rules on top of the built-in dangerous-action table. */
public record ConfirmationSpec(List<String> alwaysConfirmTools, List<String> dangerousPatterns) {
  public static final ConfirmationSpec NONE = new ConfirmationSpec(List.of(), List.of());

  public ConfirmationSpec {
    alwaysConfirmTools = alwaysConfirmTools == null ? List.of() : List.copyOf(alwaysConfirmTools);
    dangerousPatterns = dangerousPatterns == null ? List.of() : List.copyOf(dangerousPatterns);
  }
}
