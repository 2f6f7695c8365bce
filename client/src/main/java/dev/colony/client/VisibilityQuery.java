package dev.colony.client;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A visibility list filter ({@code ListWorkflowExecutions}, {@code CountWorkflowExecutions}) with
 * one quoting rule for every value a person or a config gave: between single quotes, a quote
 * written {@code \'} and a backslash {@code \\} (as Temporal's query parser reads them back), so no
 * value ends the string early or adds a clause; a control character (a newline, ...) is refused,
 * because no name Colony makes holds one and Temporal finds no such value whichever way it is written.
 * Attribute names are Colony's own constants and are checked to be plain names.
 *
 * <pre>{@code
 * VisibilityQuery.where().eq("WorkflowType", "MergeQueue").eq("ColonyName", colony).running()
 * }</pre>
 */
public final class VisibilityQuery {
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private final List<String> clauses;

  private VisibilityQuery(List<String> clauses) {
    this.clauses = clauses;
  }

  /** An empty filter (everything); add clauses, each joined with {@code AND}. */
  public static VisibilityQuery where() {
    return new VisibilityQuery(List.of());
  }

  /**
   * {@code value} between single quotes, escaped; the one rule.
   *
   * @throws IllegalArgumentException for null or a value with a control character, naming it
   */
  public static String literal(String value) {
    if (value == null) {
      throw new IllegalArgumentException("nothing to search for");
    }
    StringBuilder b = new StringBuilder(value.length() + 2).append('\'');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isISOControl(c)) {
        throw new IllegalArgumentException("'" + value.replaceAll("\\p{Cntrl}", "?") + "' cannot be searched for: it "
            + "holds a control character (a newline, a tab, ...)");
      }
      if (c == '\'' || c == '\\') {
        b.append('\\');
      }
      b.append(c);
    }
    return b.append('\'').toString();
  }

  /** {@code ('a', 'b')}, each a {@link #literal}. */
  public static String inList(Collection<String> values) {
    if (values.isEmpty()) {
      throw new IllegalArgumentException("an IN list needs a value");
    }
    return "(" + String.join(", ", values.stream().map(VisibilityQuery::literal).toList()) + ")";
  }

  /** {@code attribute = 'value'}. */
  public VisibilityQuery eq(String attribute, String value) {
    return and(name(attribute) + " = " + literal(value));
  }

  /** {@code attribute != 'value'}. */
  public VisibilityQuery notEq(String attribute, String value) {
    return and(name(attribute) + " != " + literal(value));
  }

  /** {@code attribute IN ('a', 'b')}. */
  public VisibilityQuery in(String attribute, Collection<String> values) {
    return and(name(attribute) + " IN " + inList(values));
  }

  /** {@code attribute STARTS_WITH 'prefix'}. */
  public VisibilityQuery startsWith(String attribute, String prefix) {
    return and(name(attribute) + " STARTS_WITH " + literal(prefix));
  }

  /** {@code attribute = true} (or {@code false}), a Bool search attribute. */
  public VisibilityQuery eq(String attribute, boolean value) {
    return and(name(attribute) + " = " + value);
  }

  /** {@code attribute > n}, an Int search attribute. */
  public VisibilityQuery above(String attribute, long n) {
    return and(name(attribute) + " > " + n);
  }

  /** {@code attribute >= 'instant'}, a Datetime search attribute (or {@code StartTime}, {@code CloseTime}). */
  public VisibilityQuery since(String attribute, java.time.Instant at) {
    return and(name(attribute) + " >= " + literal(at.toString()));
  }

  /** {@code attribute IS NULL}. */
  public VisibilityQuery isNull(String attribute) {
    return and(name(attribute) + " IS NULL");
  }

  /** {@code ExecutionStatus = 'Running'}. */
  public VisibilityQuery running() {
    return eq("ExecutionStatus", "Running");
  }

  /**
   * This filter and {@code other}: its one clause as it is (a comparison, or an {@link #anyOf} in its
   * parentheses), several in parentheses; nothing for an empty one.
   */
  public VisibilityQuery and(VisibilityQuery other) {
    if (other.clauses.isEmpty()) {
      return this;
    }
    return and(other.clauses.size() == 1 ? other.clauses.get(0) : "(" + other + ")");
  }

  /**
   * One clause that holds when any of {@code alternatives} holds: {@code (a OR (b AND c))}, in
   * parentheses, so it joins other clauses with {@code AND} as one.
   */
  public static VisibilityQuery anyOf(VisibilityQuery... alternatives) {
    List<String> parts = new ArrayList<>();
    for (VisibilityQuery a : alternatives) {
      if (a.clauses.isEmpty()) {
        throw new IllegalArgumentException("an alternative of an OR needs a clause");
      }
      parts.add(a.clauses.size() == 1 ? a.clauses.get(0) : "(" + a + ")");
    }
    if (parts.isEmpty()) {
      throw new IllegalArgumentException("an OR needs an alternative");
    }
    return new VisibilityQuery(List.of("(" + String.join(" OR ", parts) + ")"));
  }

  private VisibilityQuery and(String clause) {
    List<String> next = new ArrayList<>(clauses);
    next.add(clause);
    return new VisibilityQuery(List.copyOf(next));
  }

  private static String name(String attribute) {
    if (attribute == null || !NAME.matcher(attribute).matches()) {
      throw new IllegalArgumentException("'" + attribute + "' is not a search attribute name");
    }
    return attribute;
  }

  /** The filter's text: its clauses joined with {@code AND}; empty for everything. */
  @Override
  public String toString() {
    return String.join(" AND ", clauses);
  }
}
