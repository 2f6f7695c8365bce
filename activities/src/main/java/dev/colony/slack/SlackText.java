package dev.colony.slack;

import com.slack.api.model.block.ActionsBlock;
import com.slack.api.model.block.ContextBlock;
import com.slack.api.model.block.LayoutBlock;
import com.slack.api.model.block.SectionBlock;
import com.slack.api.model.block.composition.MarkdownTextObject;
import com.slack.api.model.block.composition.PlainTextObject;
import com.slack.api.model.block.element.ButtonElement;
import dev.colony.chat.OperatorMessages;
import java.util.List;
import java.util.regex.Pattern;

/** Colony's posts in Slack's terms: its markdown (mrkdwn) and the Block Kit of a request. */
public final class SlackText {
  public static final String APPROVE = "colony_approve";
  public static final String DENY = "colony_deny";
  private static final Pattern BOLD = Pattern.compile("\\*\\*(.+?)\\*\\*");
  private static final Pattern STRIKE = Pattern.compile("~~(.+?)~~");
  private static final Pattern UNDERLINE = Pattern.compile("__(.+?)__");
  private static final Pattern LINK = Pattern.compile("\\[([^\\]\\n]{1,200})\\]\\((https?://[^\\s)<>|]{1,2000})\\)");

  private SlackText() {}

  /**
   * The text of a post (written in the Discord-style markdown all of Colony's posts use) in
   * Slack's mrkdwn. {@code &}, {@code <} and {@code >} are escaped first, as Slack requires: what
   * an agent printed can then never become a mention ({@code <!channel>}) or a disguised link.
   */
  public static String mrkdwn(String text) {
    String t = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    t = BOLD.matcher(t).replaceAll("*$1*");
    t = STRIKE.matcher(t).replaceAll("~$1~");
    t = UNDERLINE.matcher(t).replaceAll("_$1_");
    return LINK.matcher(t).replaceAll(m -> java.util.regex.Matcher.quoteReplacement(
        "<" + m.group(2) + "|" + m.group(1).replace("|", "¦") + ">"));
  }

  /** A confirmation request: its text, then Approve and Deny buttons carrying ant and request. */
  static List<LayoutBlock> requestBlocks(String text, String ant, int id) {
    String value = ant + "#" + id;
    return List.of(
        SectionBlock.builder().text(MarkdownTextObject.builder().text(text).build()).build(),
        ActionsBlock.builder().blockId("colony_request").elements(List.of(
            ButtonElement.builder().actionId(APPROVE).value(value).style("primary")
                .text(PlainTextObject.builder().text("✅ Approve").emoji(true).build()).build(),
            ButtonElement.builder().actionId(DENY).value(value).style("danger")
                .text(PlainTextObject.builder().text("❌ Deny").emoji(true).build()).build())).build());
  }

  /** The request once decided: its text, and who decided instead of the buttons. */
  static List<LayoutBlock> decidedBlocks(String text, boolean approved, String who) {
    return List.of(
        SectionBlock.builder().text(MarkdownTextObject.builder().text(text).build()).build(),
        ContextBlock.builder().elements(List.of(MarkdownTextObject.builder()
            .text((approved ? "✅ approved by " : "❌ denied by ") + mrkdwn(who)).build())).build());
  }

  /** The value of a request's button: ant and request number; null when it is not one of ours. */
  static OperatorMessages.RequestRef parseValue(String value) {
    if (value == null) {
      return null;
    }
    int hash = value.lastIndexOf('#');
    if (hash <= 0 || hash == value.length() - 1 || value.length() > 100) {
      return null;
    }
    try {
      return new OperatorMessages.RequestRef(value.substring(0, hash), Integer.parseInt(value.substring(hash + 1)));
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
