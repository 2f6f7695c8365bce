package dev.colony.engine;

import dev.colony.chat.ChatPost;
import dev.colony.chat.impl.ChatSink;
import dev.colony.spec.AntSpec;
import dev.colony.spec.LmOutput;
import dev.colony.spec.ToolCallLogging;
import java.io.PrintStream;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where an agent's own words and its tool calls go while a session runs, per the ant's
 * {@code logging}: narration to the channel, the worker's console or both; tool calls after
 * they run, all of them, none, or only those that change something. Posts are bounded and cut
 * with a visible marker, never dropped.
 */
public class Narrator {
  private static final Logger log = LoggerFactory.getLogger(Narrator.class);
  /** Below Discord's 2000-character message limit, with room for the prefix. */
  public static final int POST_LIMIT = 1800;
  /** Tools that only look: not logged under {@code tool_calls: impactful}. */
  static final Set<String> READ_ONLY = Set.of("read", "grep", "glob", "ls", "websearch", "webfetch",
      "todoread", "read_file", "list_files", "search_files");

  private final AntSpec spec;
  private final ChatSink chat;
  private final PrintStream console;
  private final String keyPrefix;
  private final AtomicInteger sequence = new AtomicInteger();

  public Narrator(AntSpec spec, ChatSink chat, PrintStream console, String keyPrefix) {
    this.spec = spec;
    this.chat = chat;
    this.console = console;
    this.keyPrefix = keyPrefix;
  }

  /** The agent said something. */
  public void text(String text) {
    if (text == null || text.isBlank()) {
      return;
    }
    LmOutput where = spec.lmOutput();
    if (where == LmOutput.CONSOLE || where == LmOutput.BOTH) {
      console.println("[" + spec.name() + "] " + dev.colony.text.Printable.of(text.strip()));
    }
    if (where == LmOutput.DISCORD || where == LmOutput.BOTH) {
      post(text.strip());
    }
  }

  /** The agent asked to post to its channel itself (Gemini's notify_discord tool). */
  public void notifyChannel(String text) {
    post(text.strip());
  }

  /** A tool call finished. */
  public void toolUsed(String tool, String input, String result, boolean error) {
    ToolCallLogging mode = spec.toolCalls();
    if (mode == ToolCallLogging.OFF
        || mode == ToolCallLogging.IMPACTFUL && READ_ONLY.contains(tool.toLowerCase(Locale.ROOT))) {
      return;
    }
    StringBuilder sb = new StringBuilder("🔧 ").append(tool);
    if (input != null && !input.isBlank()) {
      sb.append(": ").append(clip(input.strip(), 300));
    }
    if (result != null && !result.isBlank()) {
      sb.append(error ? "\n⚠️ " : "\n→ ").append(clip(result.strip(), 600));
    }
    post(sb.toString());
  }

  /** Something the operator should see even with narration off. */
  public void post(String text) {
    String bounded = clip(text, POST_LIMIT);
    try {
      chat.deliver(new ChatPost(spec.colony(), spec.name(), spec.discordChannel(), bounded,
          keyPrefix + "/n" + sequence.incrementAndGet(), System.currentTimeMillis()));
    } catch (Exception e) {
      log.warn("{}: could not post narration: {}", spec.name(), e.toString());
    }
  }

  public static String clip(String text, int limit) {
    if (text.length() <= limit) {
      return text;
    }
    return text.substring(0, limit) + "… [truncated, " + (text.length() - limit) + " more characters]";
  }
}
