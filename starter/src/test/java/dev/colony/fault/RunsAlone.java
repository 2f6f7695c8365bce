package dev.colony.fault;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * An integration test class that runs while no other does: one so busy (HostsIT: a thousand ants
 * on two workers) that the other fork's test, or itself, would miss its heartbeat deadlines beside
 * it. {@link ForkTurns} sees to it.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface RunsAlone {}
