package dev.colony.supervision;

/**
 * One entry of a colony's event log.
 *
 * @param seq increasing from 1 over the colony's life (for {@code observe} to resume after)
 * @param type {@code agent_parked}, {@code agent_restarted}, {@code restart_limit_exceeded},
 *     {@code agent_failed}, {@code group_reset}
 * @param ant the ant concerned; null for a group event
 * @param strategy the group's strategy, for restarts
 */
public record ColonyEvent(long seq, long atMillis, String type, String ant, String group, String strategy,
    String reason) {
  /** The event as the alerts channel (and {@code colony observe}) reads it. */
  public String describe() {
    String who = ant() == null ? "group **" + group() + "**" : "**" + ant() + "**";
    String icon = switch (type()) {
      case "agent_restarted" -> "♻️";
      case "agent_failed", "restart_limit_exceeded" -> "🛑";
      case "agent_budget" -> "💰";
      case "agent_escalated" -> "🚨";
      case "agent_resumed" -> "▶️";
      case "agent_aborted" -> "🗑️";
      case "group_reset" -> "🔁";
      default -> "⚠️";
    };
    return icon + " supervisor: " + type().replace('_', ' ') + " " + who
        + (strategy() == null ? "" : ant() == null ? " (" + strategy() + ")" : " (" + strategy() + ", group " + group() + ")")
        + (reason() == null ? "" : ": " + reason());
  }
}
