package dev.colony.chat.impl;

import java.util.ArrayList;
import java.util.List;

/** Cutting an ant's post to what a chat accepts in one message. */
public final class ChatText {
  private static final String CUT = "\n… (cut)";
  /** Longer posts are cut: an ant's channel is not a log file. */
  public static final int MAX_PARTS = 5;

  private ChatText() {}

  /** At most {@link #MAX_PARTS} parts of at most {@code max} characters, split at line breaks. */
  public static List<String> split(String text, int max) {
    List<String> parts = new ArrayList<>();
    String rest = text;
    while (!rest.isEmpty()) {
      if (parts.size() == MAX_PARTS - 1 && rest.length() > max) {
        parts.add(rest.substring(0, max - CUT.length()) + CUT);
        return parts;
      }
      if (rest.length() <= max) {
        parts.add(rest);
        break;
      }
      int at = rest.lastIndexOf('\n', max);
      if (at < max / 2) {
        at = max;
      }
      parts.add(rest.substring(0, at));
      rest = rest.substring(at).replaceFirst("^\n", "");
    }
    return parts;
  }

  /** A file a human attached to a message. */
  public record Attachment(String name, long size, String url) {}

  private static final int MAX_ATTACHMENTS = 10;

  /** A human's message with its attachments (at most ten) as lines an agent reads: name, size, link. */
  public static String withAttachments(String text, List<Attachment> files) {
    StringBuilder sb = new StringBuilder(text);
    int n = 0;
    for (Attachment a : files) {
      if (n++ == MAX_ATTACHMENTS) {
        sb.append("\n[").append(files.size() - MAX_ATTACHMENTS).append(" more attachments]");
        break;
      }
      sb.append("\n[attachment: ").append(a.name()).append(", ").append(a.size()).append(" bytes, ").append(a.url())
          .append(']');
    }
    return sb.toString();
  }

  /** The first line of {@code text}, at most {@code max} characters. */
  public static String firstLine(String text, int max) {
    String line = text.lines().findFirst().orElse("");
    return line.length() > max ? line.substring(0, max - 1) + "…" : line;
  }
}
