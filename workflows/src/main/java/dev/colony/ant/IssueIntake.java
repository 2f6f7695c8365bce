package dev.colony.ant;

import dev.colony.trigger.IssueEvent;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The GitHub issues the ant works through: those waiting (oldest first), the one the running
 * session took (given back if it fails), and those ever taken (bounded: the oldest are forgotten
 * first).
 */
final class IssueIntake {
  private final LinkedHashSet<String> handled = new LinkedHashSet<>();
  private final List<IssueEvent> pending = new ArrayList<>();
  private final int maxHandled;
  private IssueEvent taken;

  /** What it carries across continue-as-new (the JSON names of the ant's memory). */
  record Memory(List<String> handledIssues, List<IssueEvent> pendingIssues) {
    Memory {
      handledIssues = handledIssues == null ? List.of() : List.copyOf(handledIssues);
      pendingIssues = pendingIssues == null ? List.of() : List.copyOf(pendingIssues);
    }
  }

  IssueIntake(Memory m, int maxHandled) {
    this(m.handledIssues(), m.pendingIssues(), maxHandled);
  }

  Memory memory() {
    return new Memory(handledKeys(), pending());
  }

  IssueIntake(List<String> handled, List<IssueEvent> pending, int maxHandled) {
    this.handled.addAll(handled);
    this.pending.addAll(pending);
    this.maxHandled = maxHandled;
  }

  /** Taken before, or already waiting. */
  boolean known(String key) {
    return handled.contains(key) || pending.stream().anyMatch(p -> p.key().equals(key));
  }

  void offer(IssueEvent issue) {
    pending.add(issue);
  }

  boolean hasPending() {
    return !pending.isEmpty();
  }

  int pendingCount() {
    return pending.size();
  }

  /** The oldest waiting issue for the next session (null: none); it counts as handled from now on. */
  IssueEvent take() {
    IssueEvent issue = pending.isEmpty() ? null : pending.remove(0);
    if (issue != null) {
      handled.add(issue.key());
      while (handled.size() > maxHandled) {
        handled.remove(handled.iterator().next());
      }
    }
    taken = issue;
    return issue;
  }

  /** The issue the running (or last) session took; null if none. */
  IssueEvent taken() {
    return taken;
  }

  /** The session is done with its issue (finished or dropped): it does not come back. */
  void done() {
    taken = null;
  }

  /** The session failed: its issue goes back to the front of the line. */
  void giveBack() {
    if (taken != null) {
      pending.add(0, taken);
      taken = null;
    }
  }

  List<String> handledKeys() {
    return List.copyOf(handled);
  }

  List<IssueEvent> pending() {
    return pending;
  }
}
