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

  /** {@code attribute IS NULL}. */
  public VisibilityQuery isNull(String attribute) {
    return and(name(attribute) + " IS NULL");
  }

  /** {@code ExecutionStatus = 'Running'}. */
  public VisibilityQuery running() {
    return eq("ExecutionStatus", "Running");
  }

  /** This filter and {@code other} in parentheses (an OR of several is built as its own query). */
  public VisibilityQuery and(VisibilityQuery other) {
    return other.clauses.isEmpty() ? this : and("(" + other + ")");
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
