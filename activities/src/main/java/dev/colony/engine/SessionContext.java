package dev.colony.engine;

import dev.colony.spec.AntSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Everything an engine needs for one session, with {@code ${VAR}} already resolved on this
 * worker: {@code env} holds the values, and never leaves the worker.
 *
 * @param transcript file the engine writes the full session output to
 */
public record SessionContext(
    AntSpec spec,
    int session,
    String prompt,
    Path workspace,
    Map<String, String> env,
    Path transcript,
    Duration timeout,
    Duration heartbeatInterval,
    Progress progress) {}
