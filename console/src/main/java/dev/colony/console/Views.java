package dev.colony.console;

import dev.colony.client.ColonySource;
import dev.colony.client.Costs;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.colony.secrets.Secrets;
import dev.colony.client.ColonySource.Counts;
import dev.colony.client.ColonySource.Row;
import dev.colony.client.ColonySource.TurnBatch;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskState;
import dev.colony.task.TaskWork;
import dev.colony.visibility.AntCard;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The answers of the JSON API built from what the source read, and the one way out: {@link #json}
 * writes an answer with every string (keys and values) passed through the redactor.
 */
final class Views {
  static final ObjectMapper MAPPER = new ObjectMapper()
      .findAndRegisterModules()
      .configure(com.fasterxml.jackson.databind.SerializationFeature.FAIL_ON_EMPTY_BEANS, false)
      .configure(com.fasterxml.jackson.databind.SerializationFeature.WRITE_DATES_AS_TIMESTAMPS, true);

  private final Secrets secrets;
  private final String colony;
  private final String namespace;
  private final String webUi;

  Views(Secrets secrets, String colony, String namespace, String webUi) {
    this.secrets = secrets;
    this.colony = colony;
    this.namespace = namespace;
    this.webUi = webUi;
  }

  /**
   * Writes a sample answer once, at start: the first write of a card costs Jackson a second or more
   * of introspection, which would otherwise delay the first live event.
   */
  void warmUp() {
    AntCard card = new AntCard(AntCard.VERSION, 0, "waiting", 0, "", null, null, null, 0, false, null, 0, 0, 0, null, null,
        "UTC", null, null, List.of(new AntCard.DayCost("2026-01-01", 0, 0)),
        List.of(new AntCard.SessionRecord(1, 0, 0, "success", "", 0, 0, 0, 0, "")), List.of(),
        List.of(new AntCard.QueuedMail("", false, null)), 0);
    json(row(new Row("warm-up", "waiting", false, null, 0, 0, 0, null, null, false, null, card, true, 0)));
    json(inbox(List.of()));
    json(colony(new Counts(0, 0, 0, 0, 0, 0), null));
    json(taskDetail(new TaskCard("", "warm-up", "", "", null, List.of(), null, TaskState.TODO, null, null, null, 0, 0, 0,
        0, List.of(new dev.colony.task.TaskComment("", "", 0)), null,
        new TaskWork(null, null, null, List.of(new TaskWork.Commit("", "")), 0, 0, 0, List.of("")),
        List.of(new dev.colony.task.TaskSessionLink("", 0, "", "", 0, 0)), List.of(new dev.colony.task.TaskEvent(0, "", ""))),
        false));
  }

  String redact(String s) {
    return secrets.redact(s);
  }

  /** {@code answer} as JSON, every string redacted. */
  String json(Object answer) {
    JsonNode tree = MAPPER.valueToTree(answer);
    try {
      return MAPPER.writeValueAsString(redact(tree));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private JsonNode redact(JsonNode n) {
    if (n.isTextual()) {
      String r = secrets.redact(n.textValue());
      return r.equals(n.textValue()) ? n : TextNode.valueOf(r);
    }
    if (n.isArray()) {
      ArrayNode a = (ArrayNode) n;
      for (int i = 0; i < a.size(); i++) {
        a.set(i, redact(a.get(i)));
      }
    } else if (n.isObject()) {
      ObjectNode o = (ObjectNode) n;
      boolean keysClean = true;
      for (Iterator<String> it = o.fieldNames(); it.hasNext() && keysClean; ) {
        String k = it.next();
        keysClean = secrets.redact(k).equals(k);
      }
      if (keysClean) {
        // the common case, in place (a board of 10,000 tasks is 10,000 objects)
        for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
          var e = it.next();
          JsonNode r = redact(e.getValue());
          if (r != e.getValue()) {
            e.setValue(r);
          }
        }
        return n;
      }
      Map<String, JsonNode> fields = new LinkedHashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
        var e = it.next();
        fields.put(secrets.redact(e.getKey()), redact(e.getValue()));
      }
      o.removeAll();
      fields.forEach(o::set);
    }
    return n;
  }

  Map<String, Object> colony(Counts counts, Auth.Principal who) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("colony", colony);
    m.put("namespace", namespace);
    m.put("webUi", webUi);
    m.put("counts", counts);
    if (who != null) {
      m.put("role", who.operator() ? "operator" : "read");
      m.put("operator", who.name());
    }
    return m;
  }

  Map<String, Object> row(Row r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", r.name());
    m.put("state", r.state());
    m.put("running", r.running());
    m.put("paused", r.paused());
    m.put("pauseReason", r.pauseReason());
    m.put("sessions", r.sessions());
    m.put("errors", r.errors());
    m.put("queue", r.queue());
    m.put("nextWake", r.nextWake());
    m.put("host", r.host());
    m.put("needsHuman", r.needsHuman());
    m.put("lastOutcome", r.lastOutcome());
    m.put("updatedAt", r.updatedMillis() == 0 ? null : r.updatedMillis());
    // Today's and this month's figures as of now, in the ant's budget zone (the card keeps the day it counted).
    m.put("card", r.card() == null ? null : r.card().asOf(r.card().today(System.currentTimeMillis())));
    return m;
  }

  Map<String, Object> detail(ColonySource.Detail d) {
    Map<String, Object> m = row(d.row());
    m.put("workflowId", d.workflowId());
    m.put("runId", d.runId());
    m.put("webUiUrl", d.webUiUrl());
    m.put("description", d.description());
    m.put("engine", d.engine());
    return m;
  }

  Map<String, Object> turns(String ant, TurnBatch b) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("ant", ant);
    m.put("session", b.session());
    m.put("reset", b.reset());
    m.put("turns", b.turns());
    return m;
  }

  /** The board's columns, in order: {@code [{"state": "backlog", "label": "Backlog"}, ...]}. */
  static List<Map<String, String>> columns() {
    List<Map<String, String>> out = new ArrayList<>();
    for (TaskState s : TaskState.values()) {
      out.add(Map.of("state", s.word(), "label", s.label()));
    }
    return out;
  }

  /**
   * A task as the board's card shows it (no body, comments or log: the drawer reads those).
   *
   * @param antGone whether it is In Progress with a worker that is not a running ant; null: unknown
   */
  Map<String, Object> task(TaskCard c, Boolean antGone) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", c.id());
    m.put("title", c.title());
    m.put("state", c.state() == null ? null : c.state().word());
    m.put("priority", c.priority().word());
    m.put("labels", c.labels());
    m.put("assignee", c.assignee() == null ? null : c.assignee().text());
    m.put("worker", c.worker());
    m.put("createdAt", c.createdAtMillis());
    m.put("stateSince", c.stateSinceMillis());
    m.put("updatedAt", c.updatedAtMillis());
    m.put("attempts", c.attempts());
    m.put("reason", c.reason());
    m.put("issueUrl", c.issueUrl());
    m.put("antGone", antGone);
    m.put("comments", c.comments().size());
    m.put("commits", c.work() == null ? 0 : c.work().commits().size());
    return m;
  }

  /** A task in full, for the drawer: the card, its body, comments, work (branch, commits, files, +/-), sessions and log. */
  Map<String, Object> taskDetail(TaskCard c, Boolean antGone) {
    Map<String, Object> m = task(c, antGone);
    m.put("body", c.body());
    m.put("commentList", c.comments());
    m.put("work", c.work());
    List<Map<String, Object>> sessions = new ArrayList<>();
    for (var s : c.sessions()) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("ant", s.ant());
      x.put("session", s.session());
      x.put("outcome", s.outcome());
      x.put("summary", s.summary());
      x.put("costUsd", s.costUsd());
      x.put("at", s.atMillis());
      x.put("antUrl", s.ant() != null && ConsoleServer.ANT_NAME.matcher(s.ant()).matches()
          ? "/ants/" + s.ant() : null);
      sessions.add(x);
    }
    m.put("sessions", sessions);
    m.put("log", c.log());
    m.put("webUiUrl", webUi == null ? null : webUi + "/namespaces/" + enc(namespace) + "/workflows/"
        + enc(dev.colony.task.TaskIds.workflowId(colony, c.id())) + "/history");
    return m;
  }

  private static String enc(String s) {
    return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** The inbox: what each ant needing a human waits for, oldest first. */
  /** The inbox: what waits for a human ({@link dev.colony.client.Inbox}, the one reading), oldest first. */
  Map<String, Object> inbox(List<Row> rows) {
    List<Map<String, Object>> items = new ArrayList<>();
    for (dev.colony.client.Inbox.Item i : dev.colony.client.Inbox.of(rows)) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("ant", i.ant());
      m.put("kind", i.kind());
      m.put("sinceMillis", i.sinceMillis());
      m.put("detail", i.detail());
      m.put("confirmation", i.confirmation());
      m.put("actions", i.actions());
      items.add(m);
    }
    return Map.of("items", items);
  }

  /** Cost per ant per day from the cards' ledgers, the colony's total, the budgets ({@link Costs}). */
  Map<String, Object> costs(List<Row> rows, int days) {
    Costs c = Costs.of(rows, days, System.currentTimeMillis());
    List<Map<String, Object>> ants = new ArrayList<>();
    for (Costs.Ant x : c.ants()) {
      Map<String, Object> a = new LinkedHashMap<>();
      a.put("name", x.name());
      a.put("perDay", x.usdPerDay());
      a.put("sessionsPerDay", x.sessionsPerDay());
      a.put("totalUsd", x.totalUsd());
      a.put("dailyBudgetUsd", x.dailyBudgetUsd());
      a.put("monthlyBudgetUsd", x.monthlyBudgetUsd());
      a.put("todayUsd", x.todayUsd());
      a.put("monthUsd", x.monthUsd());
      ants.add(a);
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("days", c.days());
    m.put("ants", ants);
    m.put("totalPerDay", c.totalPerDay());
    m.put("totalUsd", c.totalUsd());
    return m;
  }

  /** The same as CSV: {@code day,ant,usd,sessions}, redacted. */
  String costsCsv(List<Row> rows, int days) {
    StringBuilder sb = new StringBuilder("day,ant,usd,sessions\n");
    Costs c = Costs.of(rows, days, System.currentTimeMillis());
    for (Costs.Ant x : c.ants()) {
      for (int i = 0; i < c.days().size(); i++) {
        sb.append(c.days().get(i)).append(',').append(csv(x.name())).append(',')
            .append(String.format(java.util.Locale.ROOT, "%.4f", x.usdPerDay()[i])).append(',')
            .append(x.sessionsPerDay()[i]).append('\n');
      }
    }
    return secrets.redact(sb.toString());
  }

  private static String csv(String s) {
    return s.matches("[A-Za-z0-9_.-]*") ? s : '"' + s.replace("\"", "\"\"") + '"';
  }

  /** A request's body as a JSON object (an empty body is an empty object); anything else is refused in one sentence. */
  static JsonNode jsonObject(byte[] raw) {
    JsonNode body;
    try {
      body = raw.length == 0 ? MAPPER.createObjectNode() : MAPPER.readTree(raw);
    } catch (java.io.IOException bad) {
      throw new IllegalArgumentException("the body is not JSON");
    }
    if (body == null || !body.isObject()) {
      throw new IllegalArgumentException("the body must be a JSON object");
    }
    return body;
  }
}
