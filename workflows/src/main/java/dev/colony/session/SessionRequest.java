package dev.colony.session;

import dev.colony.spec.AntSpec;
import java.util.List;

/**
 * One session to run.
 *
 * @param session 1-based session number over the ant's whole life
 * @param messages queued human instructions to deliver in this session's prompt
 * @param workspace absolute path of the prepared working directory; null: the session activity
 *     prepares it first, on the ant's host (runs since the lean cycle)
 * @param issue the GitHub issue that woke this session, or null
 * @param resumeConversation the agent conversation this session continues (after a supervisor's
 *     restart under {@code recovery: resume}); null for a fresh one
 * @param whispers the overseer's whispers not yet delivered (rendered), for the prompt
 * @param task the task this session works on (its prompt carries it; the result's {@code work}
 *     describes its commits), or null
 * @param reworkItem the merge queue's item this session reworks (a session of its own: its prompt is
 *     the queue's text, it has no task; the result's {@code work} ends at the head it leaves), or null
 */
public record SessionRequest(AntSpec spec, int session, List<String> messages, String workspace,
    dev.colony.trigger.IssueEvent issue, String resumeConversation, List<String> whispers,
    dev.colony.task.TaskBrief task, String reworkItem) {
  public SessionRequest(AntSpec spec, int session, List<String> messages, String workspace,
      dev.colony.trigger.IssueEvent issue, String resumeConversation, List<String> whispers,
      dev.colony.task.TaskBrief task) {
    this(spec, session, messages, workspace, issue, resumeConversation, whispers, task, null);
  }

  public SessionRequest(AntSpec spec, int session, List<String> messages, String workspace,
      dev.colony.trigger.IssueEvent issue, String resumeConversation, List<String> whispers) {
    this(spec, session, messages, workspace, issue, resumeConversation, whispers, null);
  }

  public SessionRequest(AntSpec spec, int session, List<String> messages, String workspace,
      dev.colony.trigger.IssueEvent issue, String resumeConversation) {
    this(spec, session, messages, workspace, issue, resumeConversation, null);
  }

  public SessionRequest(AntSpec spec, int session, List<String> messages, String workspace) {
    this(spec, session, messages, workspace, null, null);
  }

  public SessionRequest(AntSpec spec, int session, List<String> messages, String workspace,
      dev.colony.trigger.IssueEvent issue) {
    this(spec, session, messages, workspace, issue, null);
  }

  public SessionRequest {
    messages = messages == null ? List.of() : List.copyOf(messages);
    whispers = whispers == null ? List.of() : List.copyOf(whispers);
  }
}
