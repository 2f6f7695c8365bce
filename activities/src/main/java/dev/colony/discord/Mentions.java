package dev.colony.discord;

import java.util.List;

/** Who a post mentions: user and role ids, and the text that pings them. */
public record Mentions(List<String> users, List<String> roles) {
  public static final Mentions NONE = new Mentions(List.of(), List.of());

  public Mentions {
    users = List.copyOf(users);
    roles = List.copyOf(roles);
  }

  public String prefix() {
    StringBuilder sb = new StringBuilder();
    users.forEach(u -> sb.append("<@").append(u).append("> "));
    roles.forEach(r -> sb.append("<@&").append(r).append("> "));
    return sb.toString();
  }
}
