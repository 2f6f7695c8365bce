package dev.colony.task;

import java.util.List;
import java.util.Objects;

/**
 * Which change fits a task in its state, as one pure function per update: null when it fits,
 * else the one sentence the person (or ant) is told. The workflow's validators throw these, so a
 * refused change leaves no history; the handlers ask again (two changes sent at once are applied
 * one after the other, and the second may no longer fit).
 */
public final class TaskRules {
  private TaskRules() {}

  /**
   * The sentence the task's workflow refuses {@code update} ({@code approve}, {@code requeue},
   * {@code move}, {@code assign}, {@code comment}) with on {@code card}, null when it takes it: so a
   * board in memory (the tests' fake) refuses exactly as the workflow does.
   */
  public static String refusal(TaskCard card, String update, TaskChange change) {
    TaskSheet t = TaskSheet.of(card);
    return switch (update) {
      case "approve" -> approve(t, change);
      case "requeue" -> requeue(t, change);
      case "move" -> move(t, change);
      case "assign" -> assign(t, change);
      case "comment" -> comment(t, change);
      default -> throw new IllegalArgumentException("no update '" + update + "' of a task");
    };
  }

  static String claim(TaskSheet t, Claim c) {
    if (c == null || TaskText.clean(c.ant()) == null || TaskText.clean(c.token()) == null) {
      return "a claim names its ant and its token";
    }
    if (!Assignee.NAME.matcher(c.ant().strip()).matches() || c.token().length() > 200) {
      return "a claim names its ant by its name and carries a token of at most 200 characters";
    }
    if (t.state == TaskState.IN_PROGRESS && Objects.equals(t.claimToken, c.token())) {
      return null; // the same claim again (its activity was retried): the same answer
    }
    if (t.state == TaskState.IN_PROGRESS && c.ant().strip().equals(t.worker)) {
      return null; // its own ant again, under a new claim (its run restarted without the old one's memory)
    }
    if (t.state != TaskState.TODO) {
      return "task " + t.id + " is " + t.state.label() + (t.state == TaskState.IN_PROGRESS && t.worker != null
          ? " (taken by " + t.worker + ")" : "") + ", not To Do";
    }
    if (!t.takenBy(c.takerTags())) {
      return "task " + t.id + " is not for " + c.ant() + " (" + forWhom(t) + ")";
    }
    return null;
  }

  static String report(TaskSheet t, TaskReport r) {
    if (r == null || r.kind() == null || TaskText.clean(r.token()) == null) {
      return "a report names its kind and its claim's token";
    }
    if (t.state != TaskState.IN_PROGRESS || !Objects.equals(t.claimToken, r.token())) {
      return "task " + t.id + " is no longer held by this claim (it is " + t.state.label() + ")";
    }
    return null;
  }

  static String approve(TaskSheet t, TaskChange c) {
    if (t.state != TaskState.IN_REVIEW) {
      return "task " + t.id + " is " + t.state.label() + ", not In Review: only a task in review can be approved";
    }
    return c != null && c.text() != null ? TaskText.commentProblem(c.text(), "the approval's comment") : null;
  }

  static String requeue(TaskSheet t, TaskChange c) {
    if (t.state == TaskState.TODO) {
      return "task " + t.id + " is already To Do";
    }
    if (t.state == TaskState.BACKLOG) {
      return "task " + t.id + " is in the Backlog, not yet worked on: move it to To Do instead";
    }
    if (t.state == TaskState.DONE) {
      return "task " + t.id + " is Done: move it to To Do to reopen it";
    }
    if (c == null || TaskText.clean(c.text()) == null) {
      return "a re-queue needs a comment saying what to do differently";
    }
    String text = TaskText.commentProblem(c.text(), "the re-queue's comment");
    return text != null ? text : assigneeProblem(c.assignee());
  }

  static String move(TaskSheet t, TaskChange c) {
    if (c == null || c.to() == null) {
      return "a move names the column to move to (backlog, todo, in_review, done or blocked)";
    }
    if (c.to() == t.state) {
      return "task " + t.id + " is already " + t.state.label();
    }
    if (c.to() == TaskState.IN_PROGRESS) {
      return "only an ant takes a task In Progress: move it to To Do and assign it to the ant";
    }
    if (c.to() == TaskState.BLOCKED && TaskText.clean(c.text()) == null) {
      return "a move to Blocked needs a reason";
    }
    return c.text() == null ? null : TaskText.commentProblem(c.text(), "the move's reason");
  }

  static String assign(TaskSheet t, TaskChange c) {
    if (t.state == TaskState.DONE) {
      return "task " + t.id + " is Done";
    }
    if (c == null || c.assignee() == null) {
      return "an assignment names the assignee (an ant, pool:NAME, @human, or - for nobody)";
    }
    String bad = assigneeProblem(c.assignee());
    if (bad != null) {
      return bad;
    }
    if (Objects.equals(Assignee.parse(c.assignee()), t.assignee)) {
      return "task " + t.id + " is already assigned to " + (t.assignee == null ? "nobody" : t.assignee.text());
    }
    return null;
  }

  static String comment(TaskSheet t, TaskChange c) {
    return TaskText.commentProblem(c == null ? null : c.text(), "a comment");
  }

  static String assigneeProblem(String written) {
    try {
      Assignee.parse(written);
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  private static String forWhom(TaskSheet t) {
    if (t.assignee == null) {
      List<String> pools = t.labels;
      return pools.isEmpty() ? "it is for ants that take *" : "it is for ants that take " + String.join(", ", pools) + " or *";
    }
    return switch (t.assignee.kind()) {
      case ANT -> "it is assigned to " + t.assignee.name();
      case POOL -> "it is for the pool " + t.assignee.name();
      case HUMAN -> "it is assigned to the human " + t.assignee.text();
    };
  }
}
