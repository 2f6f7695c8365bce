package dev.colony.ant;

import dev.colony.task.TaskBrief;
import java.util.ArrayList;
import java.util.List;

/**
 * The ant's one task from the board, as its state owns it: the brief it holds (one task at a
 * time), the claim sequence (a claim's token, {@code <workflow id>#<n>}, never repeats within the
 * ant's life, so a task tells a retried claim from a new one; since {@code TakeTask} one token
 * serves every claim of one look, each on another task), a pending {@code tasksWaiting} wake,
 * the last claim whose answer never came (repeated with its token when the task shows up as the
 * ant's own), and the Blocked tasks whose phone notice is still to be sent. Carried across
 * continue-as-new in {@link AntMemory}, except the notices (a run drains them before it ends).
 */
final class TaskSlot {
  /** Whether this run's code takes tasks (decided once per run by {@link TaskDesk#start}). */
  private boolean active;
  private TaskBrief brief;
  private long claims;
  private boolean waiting;
  private String unansweredTaskId;
  private String unansweredToken;
  /** Blocked tasks to tell phones about: need ids {@code task-<id>-<claim>} and their text. */
  private final List<String[]> blockedNotices = new ArrayList<>();

  /** What it carries across continue-as-new (the JSON names of the ant's memory). */
  record Memory(TaskBrief task, long taskClaims, boolean tasksWaiting, String claimTaskId, String claimToken) {}

  Memory memory() {
    return new Memory(brief, claims, waiting, unansweredTaskId, unansweredToken);
  }

  TaskSlot(Memory m) {
    if (m != null) {
      brief = m.task();
      claims = m.taskClaims();
      waiting = m.tasksWaiting();
      unansweredTaskId = m.claimTaskId();
      unansweredToken = m.claimToken();
    }
  }

  void activate() {
    active = true;
  }

  boolean active() {
    return active;
  }

  TaskBrief brief() {
    return brief;
  }

  boolean held() {
    return brief != null;
  }

  /** For the {@code taskHeld} query: the held task's id, else an unanswered claim's, else ""; "?" in a run without tasks. */
  String heldId() {
    if (!active) {
      return "?";
    }
    if (brief != null) {
      return brief.id();
    }
    // A look whose answer never came may hold any task: cannot tell.
    return unansweredTaskId == null ? "" : unansweredTaskId.startsWith("(") ? "?" : unansweredTaskId;
  }

  void hold(TaskBrief b) {
    brief = b;
    unansweredTaskId = null;
    unansweredToken = null;
  }

  /** The ant lets its task go (reported, refused, withdrawn). */
  void letGo() {
    brief = null;
  }

  void update(TaskBrief b) {
    if (brief != null) {
      brief = b;
    }
  }

  /** The token of the next claim on {@code taskId}: the unanswered one's again, else a new one. */
  String tokenFor(String taskId, String workflowId) {
    if (taskId.equals(unansweredTaskId) && unansweredToken != null) {
      return unansweredToken;
    }
    claims++;
    // The chain's first run id makes tokens unique across the ant's lives: after a stop and a start
    // the count begins again, and a repeated token would be answered with an old claim's result.
    return workflowId + "/" + io.temporal.workflow.Workflow.getInfo().getFirstExecutionRunId() + "#" + claims;
  }

  /** A look was answered (it took a task or found none to take): its token is not kept. */
  void answered() {
    unansweredTaskId = null;
    unansweredToken = null;
  }

  /** A claim's activity gave up without an answer: it may have been taken, so its token is kept. */
  void unanswered(String taskId, String token) {
    unansweredTaskId = taskId;
    unansweredToken = token;
    // Look again: an ant that takes tasks only by name looks only when woken, and the claim may
    // have been applied (the task would then sit In Progress for it, unseen).
    wake();
  }

  long claims() {
    return claims;
  }

  String unansweredTaskId() {
    return unansweredTaskId;
  }

  String unansweredToken() {
    return unansweredToken;
  }

  /** A task this ant may take entered To Do ({@code tasksWaiting}). */
  void wake() {
    waiting = true;
  }

  /**
   * A wake to answer. Only in a run that takes tasks: in one recorded before them, nothing looks at
   * the board, so a wake would end every wait at once, for ever.
   */
  boolean wakePending() {
    return active && waiting;
  }

  /** The wake as received (carried across continue-as-new even from a run that does not take tasks). */
  boolean wakeRequested() {
    return waiting;
  }

  /** The board is being looked at now: the wake is answered. */
  void looked() {
    waiting = false;
  }

  void blocked(String needId, String text) {
    blockedNotices.add(new String[] {needId, text});
  }

  List<String> blockedNeedIds() {
    return blockedNotices.stream().map(n -> n[0]).toList();
  }

  String blockedText(String needId) {
    for (String[] n : blockedNotices) {
      if (n[0].equals(needId)) {
        return n[1];
      }
    }
    return null;
  }

  void noticeSent(String needId) {
    blockedNotices.removeIf(n -> n[0].equals(needId));
  }
}
