package dev.colony.task.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.task.Assignee;
import dev.colony.task.FindTasks;
import dev.colony.task.Priority;
import dev.colony.task.TaskCandidate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** An ant's FindTasks over a visibility that lists newest first, as Temporal's does: aging's order at any board size. */
@Timeout(value = 1, unit = java.util.concurrent.TimeUnit.MINUTES)
class TaskActivitiesImplTest {
  private static final long NOW = 1_800_000_000_000L;

  /** A board of {@code n} To Do tasks, one queued every minute, listed newest first; and the ant's own task. */
  private static final class Board implements TaskActivitiesImpl.Listing {
    final List<String> queries = new CopyOnWriteArrayList<>();
    final List<TaskCandidate> todo = new ArrayList<>();
    final List<TaskCandidate> mine = new ArrayList<>();

    @Override
    public Stream<TaskCandidate> list(String query, boolean isMine) {
      queries.add(query);
      return isMine ? mine.stream() : todo.stream();
    }
  }

  private static FindTasks find(int limit) {
    return new FindTasks("test", "alpha", List.of(Assignee.takeAnt("alpha"), Assignee.TAKE_ANY), 3600, limit);
  }

  @Test
  void theOldestTasksOfABoardPastTwoThousandComeFirst() {
    Board board = new Board();
    int n = 2_500;
    // Newest first: t0 was queued now, t2499 two thousand four hundred and ninety-nine minutes ago.
    IntStream.range(0, n).forEach(i -> board.todo.add(new TaskCandidate("t" + i,
        i == 3 ? Priority.HIGH : Priority.NORMAL, NOW - i * 60_000L, false)));
    // The very oldest is a low one, listed last: aging lifts it above everything younger.
    board.todo.add(new TaskCandidate("old-low", Priority.LOW, NOW - 3_000 * 60_000L, false));
    var activities = new TaskActivitiesImpl(null, "default", board, () -> NOW, null, new java.util.Random(1));

    List<TaskCandidate> found = activities.find(find(20));

    assertEquals(20, found.size());
    List<String> ids = found.stream().map(TaskCandidate::id).toList();
    List<String> expected = new ArrayList<>(List.of("old-low"));
    IntStream.range(0, 19).forEach(i -> expected.add("t" + (n - 1 - i)));
    assertEquals(expected, ids, "aging's order: the longest-waiting first, whatever the board's size");
    assertTrue(board.queries.stream().anyMatch(q -> q.contains("TaskState = 'todo'")), board.queries.toString());
  }

  @Test
  void theAntsOwnTaskComesFirstAndTheLimitHolds() {
    Board board = new Board();
    IntStream.range(0, 3_000).forEach(i -> board.todo.add(new TaskCandidate("t" + i, Priority.NORMAL,
        NOW - i * 1_000L, false)));
    board.mine.add(new TaskCandidate("mine1", Priority.LOW, NOW, true));
    var activities = new TaskActivitiesImpl(null, "default", board, () -> NOW, null, new java.util.Random(1));

    List<TaskCandidate> found = activities.find(find(5));

    assertEquals(List.of("mine1", "t2999", "t2998", "t2997", "t2996"), found.stream().map(TaskCandidate::id).toList());
    assertEquals(List.of(), activities.find(find(0)));
  }

  /**
   * A look's two visibility calls (the ant's own task, the To Do pages) run side by side, not one
   * after the other: each listing here answers only once the other has been asked, so reading them
   * in turn never answers (the test's bound fails it).
   */
  @Test
  void aLookAsksForItsOwnTaskAndTheToDoPagesAtOnce() throws Exception {
    java.util.concurrent.CountDownLatch bothAsked = new java.util.concurrent.CountDownLatch(2);
    TaskActivitiesImpl.Listing listing = (query, isMine) -> {
      bothAsked.countDown();
      try {
        if (!bothAsked.await(5, java.util.concurrent.TimeUnit.SECONDS)) {
          throw new IllegalStateException("the other visibility call was not made meanwhile: " + query);
        }
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
      return isMine ? Stream.of(new TaskCandidate("mine1", Priority.LOW, NOW, true))
          : Stream.of(new TaskCandidate("t1", Priority.HIGH, NOW - 60_000L, false));
    };
    var activities = new TaskActivitiesImpl(null, "default", listing, () -> NOW, null, new java.util.Random(1));

    assertEquals(List.of("mine1", "t1"), activities.find(find(5)).stream().map(TaskCandidate::id).toList());
  }

  /** A colony of ants that take {@code *}: every tenth one waits for work, the others run sessions. */
  private static final class Colony implements TaskActivitiesImpl.Ants {
    final List<String> all = new ArrayList<>();
    final java.util.Set<String> waiting = new java.util.TreeSet<>();
    final List<String> queries = new CopyOnWriteArrayList<>();
    final List<String> woken = new CopyOnWriteArrayList<>();
    final java.util.concurrent.atomic.AtomicInteger read = new java.util.concurrent.atomic.AtomicInteger();

    Colony(int n) {
      for (int i = 0; i < n; i++) {
        String id = "ant/test/a" + i;
        all.add(id);
        if (i % 10 == 0) {
          waiting.add(id);
        }
      }
    }

    @Override
    public Stream<String> waiting(String query) {
      queries.add(query);
      boolean onlyWaiting = query.contains("AntState = 'waiting'");
      // Each ant takes its own name and '*': AntTakes IN (...) as visibility reads it.
      java.util.Set<String> tags = new java.util.TreeSet<>();
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("'(take:[^']*)'").matcher(query);
      while (m.find()) {
        tags.add(m.group(1));
      }
      return all.stream().filter(id -> tags.contains(Assignee.TAKE_ANY)
              || tags.contains(Assignee.takeAnt(id.substring(id.lastIndexOf('/') + 1))))
          .filter(id -> !onlyWaiting || waiting.contains(id)).peek(id -> read.incrementAndGet());
    }

    @Override
    public boolean listed(String query) {
      return true;
    }

    @Override
    public boolean wake(String workflowId) {
      woken.add(workflowId);
      return true;
    }
  }

  private static TaskActivitiesImpl announcer(Colony ants) {
    return new TaskActivitiesImpl(null, "default", new Board(), () -> NOW, ants, new java.util.Random(7));
  }

  @Test
  void aTaskForEveryAntWakesAFewOfTheWaitingOnesNotTheWholeColony() {
    Colony ants = new Colony(10_000);
    int told = announcer(ants).announce("test", List.of(Assignee.TAKE_ANY));

    assertEquals(TaskActivitiesImpl.ANNOUNCE_WAKES, told);
    assertEquals(TaskActivitiesImpl.ANNOUNCE_WAKES, ants.woken.size(), "a few signals, not one per ant: " + ants.woken.size());
    assertTrue(ants.waiting.containsAll(ants.woken), "only ants waiting for work: " + ants.woken);
    assertTrue(ants.read.get() <= TaskActivitiesImpl.ANNOUNCE_SAMPLE, "one page of the waiting ants read: " + ants.read);
    assertTrue(ants.queries.get(0).contains("AntTakes IN ('take:any')"), ants.queries.toString());
    // Tasks added together wake different ants (picked at random among the waiting ones).
    var again = announcer(ants);
    java.util.Set<String> distinct = new java.util.TreeSet<>(ants.woken);
    for (int i = 0; i < 5; i++) {
      again.announce("test", List.of(Assignee.TAKE_ANY));
    }
    distinct.addAll(ants.woken);
    assertTrue(distinct.size() > 2 * TaskActivitiesImpl.ANNOUNCE_WAKES, "spread: " + distinct.size());
  }

  @Test
  void withFewerAntsWaitingThanTheBoundBusyOnesAreToldToo() {
    // Three ants, none shown as waiting yet (each looked just before the task came): all are told.
    Colony few = new Colony(3);
    few.waiting.clear();
    assertEquals(3, announcer(few).announce("test", List.of(Assignee.TAKE_ANY)));
    assertEquals(java.util.Set.of("ant/test/a0", "ant/test/a1", "ant/test/a2"), new java.util.TreeSet<>(few.woken));
    // Ten thousand, none waiting: still a few, from at most two pages.
    Colony busy = new Colony(10_000);
    busy.waiting.clear();
    assertEquals(TaskActivitiesImpl.ANNOUNCE_WAKES, announcer(busy).announce("test", List.of(Assignee.TAKE_ANY)));
    assertEquals(TaskActivitiesImpl.ANNOUNCE_WAKES, busy.woken.size());
    assertTrue(busy.read.get() <= 2 * TaskActivitiesImpl.ANNOUNCE_SAMPLE, "rows read: " + busy.read);
  }

  @Test
  void aTaskAssignedByNameWakesThatAntWhateverItDoesAndNoOther() {
    Colony ants = new Colony(10_000);
    int told = announcer(ants).announce("test", List.of(Assignee.takeAnt("a7")));

    assertEquals(1, told);
    assertEquals(List.of("ant/test/a7"), ants.woken, "a7 runs a session, and is still told");
    assertEquals(List.of(), ants.queries, "no visibility list for a task assigned by name");
  }

  @Test
  void aRetriedAnnouncementTellsNoAntTwice() {
    Colony ants = new Colony(10_000);
    io.temporal.testing.TestActivityEnvironment env = io.temporal.testing.TestActivityEnvironment.newInstance();
    try {
      env.registerActivitiesImplementations(announcer(ants));
      // The first attempt told a7 (by name) and two waiting ants, then its worker died.
      env.setHeartbeatDetails(new String[] {"ant/test/a7", "ant/test/a10", "ant/test/a20"});
      dev.colony.task.TaskActivities stub = env.newActivityStub(dev.colony.task.TaskActivities.class,
          io.temporal.activity.ActivityOptions.newBuilder().setStartToCloseTimeout(java.time.Duration.ofSeconds(30))
              .build());
      int told = stub.announce("test", List.of(Assignee.takeAnt("a7"), Assignee.TAKE_ANY));

      assertEquals(1 + TaskActivitiesImpl.ANNOUNCE_WAKES, told);
      assertEquals(TaskActivitiesImpl.ANNOUNCE_WAKES - 2, ants.woken.size(), "only the rest: " + ants.woken);
      assertTrue(ants.woken.stream().noneMatch(id -> id.equals("ant/test/a7") || id.equals("ant/test/a10")
          || id.equals("ant/test/a20")), ants.woken.toString());
    } finally {
      env.close();
    }
  }
}
