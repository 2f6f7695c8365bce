package dev.colony.engine.claude;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The Claude Code CLI's stream-json messages Colony writes: the prompt as a user message, and the
 * answers to its permission requests. One place for the protocol's shapes.
 */
final class StreamJson {
  static final ObjectMapper JSON = new ObjectMapper();

  private StreamJson() {}

  static String userMessage(String text) {
    ObjectNode m = JSON.createObjectNode();
    m.put("type", "user");
    ObjectNode message = m.putObject("message");
    message.put("role", "user");
    message.put("content", text);
    return m.toString();
  }

  static String allow(String requestId, JsonNode input) {
    ObjectNode body = JSON.createObjectNode();
    body.put("behavior", "allow");
    body.set("updatedInput", input == null || input.isMissingNode() ? JSON.createObjectNode() : input);
    return controlResponse(requestId, body);
  }

  static String deny(String requestId, String message) {
    ObjectNode body = JSON.createObjectNode();
    body.put("behavior", "deny");
    body.put("message", message);
    return controlResponse(requestId, body);
  }

  private static String controlResponse(String requestId, ObjectNode body) {
    ObjectNode m = JSON.createObjectNode();
    m.put("type", "control_response");
    ObjectNode response = m.putObject("response");
    response.put("subtype", "success");
    response.put("request_id", requestId);
    response.set("response", body);
    return m.toString();
  }

  static String controlError(String requestId, String error) {
    ObjectNode m = JSON.createObjectNode();
    m.put("type", "control_response");
    ObjectNode response = m.putObject("response");
    response.put("subtype", "error");
    response.put("request_id", requestId);
    response.put("error", error);
    return m.toString();
  }

  static String describe(JsonNode input) {
    if (input.hasNonNull("command")) {
      return "`" + input.get("command").asText() + "`";
    }
    if (input.hasNonNull("file_path")) {
      return input.get("file_path").asText();
    }
    return input.toString();
  }

  static String text(JsonNode content) {
    if (content.isTextual()) {
      return content.asText();
    }
    StringBuilder sb = new StringBuilder();
    for (JsonNode c : content) {
      if (c.hasNonNull("text")) {
        sb.append(c.get("text").asText());
      }
    }
    return sb.toString();
  }
}
