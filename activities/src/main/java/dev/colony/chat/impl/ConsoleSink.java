package dev.colony.chat.impl;

import dev.colony.chat.ChatPost;
import dev.colony.text.Printable;
import java.io.PrintStream;

/**
 * Prints each post as {@code [ant] text}: the chat of a colony without Discord. What an ant posts
 * is made {@link Printable} first: it quotes what agents, humans and GitHub wrote.
 */
public final class ConsoleSink implements ChatSink {
  private final PrintStream out;

  public ConsoleSink(PrintStream out) {
    this.out = out;
  }

  @Override
  public void deliver(ChatPost post) {
    StringBuilder sb = new StringBuilder();
    String prefix = "[" + post.ant() + "] ";
    for (String line : post.text().split("\\R", -1)) {
      sb.append(prefix).append(Printable.of(line)).append(System.lineSeparator());
    }
    synchronized (out) {
      out.print(sb);
      out.flush();
    }
  }
}
