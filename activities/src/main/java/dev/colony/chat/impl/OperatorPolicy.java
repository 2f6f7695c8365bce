package dev.colony.chat.impl;

import java.util.List;

/** Who a chat obeys: the operators of each ant, and whether refused people get an answer. */
public interface OperatorPolicy {
  /** User or group ids (or group names) obeyed for {@code ant}; empty means anyone. */
  List<String> operatorsOf(String ant);

  /** Answer refused commands from non-operators (else ignore them silently). */
  boolean replyToStrangers();
}
