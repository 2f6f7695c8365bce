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

/** Colony's posts in Slack's terms: its markdown (mrkdwn), the Block Kit of a request and of a task's post. */
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

  /** Action ids of a task's buttons; their value is the task's id. */
  public static final String TASK_APPROVE = "colony_task_approve";
  public static final String TASK_REQUEUE = "colony_task_requeue";
  /** Callback id of the Re-queue modal. */
  public static final String REQUEUE_VIEW = "colony_task_requeue";
  /** Block and action id of the modal's comment input. */
  static final String COMMENT = "comment";
  /** Slack's limit on a plain-text input. */
  static final int MAX_INPUT = 3000;

  /** A post about a task waiting for a human: its text, then Approve and Re-queue buttons carrying the task's id. */
  static List<LayoutBlock> taskBlocks(String text, String taskId) {
    return List.of(
        SectionBlock.builder().text(MarkdownTextObject.builder().text(text).build()).build(),
        ActionsBlock.builder().blockId("colony_task").elements(List.of(
            ButtonElement.builder().actionId(TASK_APPROVE).value(taskId).style("primary")
                .text(PlainTextObject.builder().text("✅ Approve").emoji(true).build()).build(),
            ButtonElement.builder().actionId(TASK_REQUEUE).value(taskId)
                .text(PlainTextObject.builder().text("🔁 Re-queue").emoji(true).build()).build())).build());
  }

  /** A task's post once pressed: its text, and what was done (or nothing more) instead of the buttons. */
  static List<LayoutBlock> taskDoneBlocks(String text, String line) {
    List<LayoutBlock> out = new java.util.ArrayList<>();
    out.add(SectionBlock.builder().text(MarkdownTextObject.builder().text(text).build()).build());
    if (line != null) {
      out.add(ContextBlock.builder().elements(List.of(MarkdownTextObject.builder().text(mrkdwn(line)).build())).build());
    }
    return out;
  }

  /**
   * The Re-queue modal: one required comment. {@code privateMetadata} carries where the post is
   * and the task ({@code channel ts taskId}); the submit is checked again all the same.
   */
  static com.slack.api.model.view.View requeueView(String taskId, String privateMetadata) {
    String title = "Re-queue " + taskId;
    return com.slack.api.model.view.View.builder().type("modal").callbackId(REQUEUE_VIEW)
        .title(com.slack.api.model.view.ViewTitle.builder().type("plain_text")
            .text(title.length() > 24 ? title.substring(0, 23) + "…" : title).build())
        .submit(com.slack.api.model.view.ViewSubmit.builder().type("plain_text").text("Re-queue").build())
        .close(com.slack.api.model.view.ViewClose.builder().type("plain_text").text("Cancel").build())
        .privateMetadata(privateMetadata)
        .blocks(List.of(com.slack.api.model.block.InputBlock.builder().blockId(COMMENT)
            .label(PlainTextObject.builder().text("Comment for the next session").build())
            .element(com.slack.api.model.block.element.PlainTextInputElement.builder().actionId(COMMENT).multiline(true)
                .minLength(1).maxLength(MAX_INPUT).build()).build()))
        .build();
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
