package dev.colony.chat.impl;

import dev.colony.chat.ChatPost;

/** Where an ant's posts go: the console today, Discord later. Implementations may assume no duplicates. */
public interface ChatSink {
  void deliver(ChatPost post) throws Exception;
}
