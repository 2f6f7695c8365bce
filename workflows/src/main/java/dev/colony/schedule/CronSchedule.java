package dev.colony.schedule;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Optional;

/** Standard 5-field cron math. Pure functions of their inputs, so safe in workflow code. */
public final class CronSchedule {
  private static final CronParser PARSER =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));

  private CronSchedule() {}

  /** Throws IllegalArgumentException with the parser's reason when the expression is not valid. */
  public static void validate(String expression) {
    PARSER.parse(expression).validate();
  }

  /** The first tick strictly after {@code afterMillis}, or null when the expression never fires. */
  public static Long nextTick(String expression, String zone, long afterMillis) {
    ZoneId zoneId = zone == null || zone.isBlank() ? ZoneId.of("UTC") : ZoneId.of(zone);
    ExecutionTime time = ExecutionTime.forCron(PARSER.parse(expression));
    Optional<ZonedDateTime> next =
        time.nextExecution(ZonedDateTime.ofInstant(Instant.ofEpochMilli(afterMillis), zoneId));
    return next.map(t -> t.toInstant().toEpochMilli()).orElse(null);
  }
}
