package dev.colony.task;

import java.util.regex.Pattern;

/** How tasks are named in Temporal: workflow id {@code task/<colony>/<id>}, type {@code TaskWorkflow}. */
public final class TaskIds {
  private TaskIds() {}

  public static final String WORKFLOW_TYPE = "TaskWorkflow";
  /** A task id: what {@code colony task add} makes ({@code k7m2qx}), or one from an issue ({@code gh-owner-repo-12}). */
  public static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9._-]{0,99}");

  public static String workflowId(String colony, String id) {
    return "task/" + colony + "/" + id;
  }

  /** The task of GitHub issue {@code owner/repo#n}: one id for ever, so it is made once. */
  public static String forIssue(String repo, int number) {
    return "gh-" + repo.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "-") + "-" + number;
  }
}
