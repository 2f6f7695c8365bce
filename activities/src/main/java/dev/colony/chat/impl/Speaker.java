package dev.colony.chat.impl;

import java.util.Locale;
import java.util.Set;

/**
 * Who wrote a message, reacted or pressed a button, as any chat sees it: an id, a display name,
 * the groups they belong to (Discord roles, Slack user groups) by id and by name, and whether the
 * workspace counts them as an administrator. Operators are matched against these.
 */
public record Speaker(String id, String name, Set<String> groupIds, Set<String> groupNames, boolean admin) {
  public Speaker {
    groupIds = Set.copyOf(groupIds);
    groupNames = groupNames.stream().map(n -> n.toLowerCase(Locale.ROOT)).collect(java.util.stream.Collectors.toUnmodifiableSet());
  }

  /** True when {@code operator} (a user id, a group id or a group name) names this speaker. */
  public boolean is(String operator) {
    return operator.equals(id) || groupIds.contains(operator) || groupNames.contains(operator.toLowerCase(Locale.ROOT));
  }
}
