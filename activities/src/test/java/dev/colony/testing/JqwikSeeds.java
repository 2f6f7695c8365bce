package dev.colony.testing;

import java.util.SplittableRandom;
import net.jqwik.api.AfterFailureMode;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropagationMode;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * {@link Seeds} for jqwik properties ({@code @AddLifecycleHook(JqwikSeeds.class)} on the class):
 * each property runs with {@code -Dcolony.seed} when given, else with its own {@code seed}
 * attribute, else with a fresh seed; the seed is printed on stderr before the property runs and
 * named in its failure message. jqwik's own report also shows it ({@code seed = N}).
 */
public final class JqwikSeeds implements AroundPropertyHook {
  /** Registered on a class, it applies to every property of that class. */
  @Override
  public PropagationMode propagateTo() {
    return PropagationMode.ALL_DESCENDANTS;
  }

  @Override
  public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
    long seed = Seeds.given().orElseGet(() -> context.attributes().seed().filter(s -> !s.isBlank())
        .map(Long::parseLong).orElseGet(() -> new SplittableRandom().nextLong()));
    context.attributes().setSeed(Long.toString(seed));
    if (Seeds.given().isPresent()) {
      // replay exactly what the seed generates, not the sample jqwik remembered from a failure here
      context.attributes().setAfterFailure(AfterFailureMode.RANDOM_SEED);
    }
    Seeds.announce(context.extendedLabel(), seed);
    PropertyExecutionResult result = property.execute();
    if (result.status() != PropertyExecutionResult.Status.FAILED) {
      return result;
    }
    Throwable cause = result.throwable().orElse(null);
    AssertionError failed = new AssertionError(context.extendedLabel() + " failed with " + Seeds.replay(seed)
        + (cause == null ? "" : ": " + cause.getMessage()), cause);
    return result.mapToFailed(failed);
  }
}
