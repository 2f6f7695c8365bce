package dev.colony.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.colony.task.TaskState;
import io.temporal.common.converter.DefaultDataConverter;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * TaskStates answers a map of task ids to {@link TaskState}: in history it is the same JSON as when
 * it answered strings, so a queue whose history holds an older answer replays it.
 */
@Timeout(30)
class TaskStatesPayloadTest {
  private static final Type STATES;

  static {
    try {
      STATES = MergeDeskActivities.class.getMethod("taskStates", String.class, List.class).getGenericReturnType();
    } catch (NoSuchMethodException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void theAnswerIsTheSameJsonAsTheMapOfStringsItWas() {
    var converter = DefaultDataConverter.newDefaultInstance();
    Map<String, TaskState> now = new TreeMap<>(Map.of("t1", TaskState.DONE, "t2", TaskState.IN_REVIEW));
    Map<String, String> before = new TreeMap<>(Map.of("t1", "DONE", "t2", "IN_REVIEW"));
    String json = converter.toPayload(now).orElseThrow().getData().toString(StandardCharsets.UTF_8);
    assertEquals(converter.toPayload(before).orElseThrow().getData().toString(StandardCharsets.UTF_8), json);
    assertEquals("{\"t1\":\"DONE\",\"t2\":\"IN_REVIEW\"}", json);
  }

  @Test
  void anAnswerRecordedAsStringsIsReadAsStates() {
    var converter = DefaultDataConverter.newDefaultInstance();
    var recorded = converter.toPayload(Map.of("t1", "DONE", "t2", "TODO")).orElseThrow();
    @SuppressWarnings("unchecked")
    Map<String, TaskState> read = (Map<String, TaskState>) converter.fromPayload(recorded, Map.class, STATES);
    assertEquals(Map.of("t1", TaskState.DONE, "t2", TaskState.TODO), read);
  }
}
