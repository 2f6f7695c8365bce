package dev.colony.engine;

import dev.colony.spec.AntSpec;
import dev.colony.task.TaskBrief;
import dev.colony.task.TaskComment;
import java.util.List;

/**
 * Assembles the prompt of a session: who the ant is, its instructions, the colony conventions
 * every ant follows, and the human instructions queued since the last session.
 */
public final class PromptBuilder {
  private PromptBuilder() {}

  /** @param spec the spec with its references resolved (see SpecReferences) */
  public static String build(AntSpec spec, int session, List<String> messages) {
    return build(spec, session, messages, null);
  }

  /** With the GitHub issue that woke this session, if any (its body is already bounded). */
  public static String build(AntSpec spec, int session, List<String> messages, dev.colony.trigger.IssueEvent issue) {
    return build(spec, session, messages, issue, List.of());
  }

  /** With the overseer's whispers that the last session ended before taking. */
  public static String build(AntSpec spec, int session, List<String> messages, dev.colony.trigger.IssueEvent issue,
      List<String> whispers) {
    return build(spec, session, messages, issue, whispers, null);
  }

  /** With the task from the board this session works on, if any (its text is bounded by the task). */
  public static String build(AntSpec spec, int session, List<String> messages, dev.colony.trigger.IssueEvent issue,
      List<String> whispers, TaskBrief task) {
    StringBuilder sb = new StringBuilder();
    sb.append("You are ").append(spec.name()).append(", an autonomous agent of the colony '")
        .append(spec.colony()).append("'. Session ").append(session).append(".\n");
    sb.append("Role: ").append(spec.description()).append("\n\n");
    sb.append("## Instructions\n").append(spec.instructions().strip()).append("\n\n");
    sb.append("## Colony conventions\n");
    sb.append("- Keep your plan in PLAN.md at the root of your working directory. Read it first to pick up")
        .append(" where the last session stopped; create it if it is missing, with the sections")
        .append(" '## Current Goal', '## Active Tasks' (- [ ] items) and '## Completed' (- [x] items).")
        .append(" Update it as you go and commit each change:")
        .append(" git add PLAN.md && git commit -m \"chore: update PLAN.md\".\n");
    if (spec.git() != null && spec.git().userName() != null) {
      sb.append("- Commit as the project owner: run git config user.name \"").append(spec.git().userName())
          .append("\"");
      if (spec.git().userEmail() != null) {
        sb.append(" and git config user.email \"").append(spec.git().userEmail()).append("\"");
      }
      sb.append(" before committing.\n");
    }
    sb.append("- Never commit as a bot identity (such as claude or github-actions[bot]).\n");
    if (issue != null) {
      sb.append("\n## The GitHub issue that woke you (work on it this session)\n")
          .append("- Repository: ").append(issue.repo()).append('\n')
          .append("- Issue: #").append(issue.number()).append(' ').append(issue.title()).append('\n')
          .append("- URL: ").append(issue.url()).append('\n')
          .append("- Labels: ").append(issue.labels().isEmpty() ? "(none)" : String.join(", ", issue.labels())).append('\n')
          .append("- Body:\n").append(issue.body().strip()).append('\n');
    }
    if (task != null) {
      sb.append('\n').append(taskSection(task));
    }
    if (!messages.isEmpty()) {
      sb.append("\n## Messages for you (handle these first; \"[message from ant NAME]\" marks one from a peer ant,\n")
          .append("answer it with \"$COLONY_BIN\" send --from \"$COLONY_ANT\" NAME \"...\")\n");
      int i = 1;
      for (String m : messages) {
        sb.append(i++).append(". ").append(m.strip()).append('\n');
      }
    }
    if (!whispers.isEmpty()) {
      sb.append("\n## From your overseer (private; read before you start)\n");
      for (String w : whispers) {
        sb.append("- ").append(w.strip()).append('\n');
      }
    }
    return sb.toString();
  }

  /**
   * The task from the board, as the prompt shows it and {@code COLONY_TASK_FILE} holds it: its
   * id, title, priority, labels, body and the comments so far (oldest first: a re-queue's comment
   * says what to do differently), and what to leave behind.
   */
  public static String taskSection(TaskBrief task) {
    StringBuilder sb = new StringBuilder();
    sb.append("## Your task (work on it this session)\n")
        .append("- Task: ").append(task.id()).append(' ').append(task.title()).append('\n')
        .append("- Priority: ").append(task.priority() == null ? "normal" : task.priority().word()).append('\n')
        .append("- Labels: ").append(task.labels().isEmpty() ? "(none)" : String.join(", ", task.labels())).append('\n');
    if (task.issueUrl() != null) {
      sb.append("- Issue: ").append(task.issueUrl()).append('\n');
    }
    if (task.attempts() > 0) {
      sb.append("- Earlier sessions on it failed: ").append(task.attempts()).append('\n');
    }
    String body = task.body() == null ? "" : task.body().strip();
    sb.append("- Body:\n").append(body.isEmpty() ? "(none)" : body).append('\n');
    if (!task.comments().isEmpty()) {
      sb.append("- Comments so far (oldest first):\n");
      task.comments().stream()
          .sorted(java.util.Comparator.comparingLong(TaskComment::atMillis))
          .forEach(c -> sb.append("  - ").append(c.author()).append(": ").append(c.text().strip().replace("\n", "\n    "))
              .append('\n'));
    }
    sb.append("When done, commit your work; your summary is what reviewers read.\n");
    return sb.toString();
  }
}
