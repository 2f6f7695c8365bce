package dev.colony.task;

import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Who a task is for: an ant of the colony ({@code alpha}), a pool of ants ({@code pool:docs}: every
 * ant whose {@code tasks.takes} names {@code docs}), or a human ({@code @alice}); a task with no
 * assignee is taken by any ant that takes one of its labels, or takes {@code "*"}.
 */
public record Assignee(Kind kind, String name) {
  public enum Kind { ANT, POOL, HUMAN }

  /** Names as ants and pools are named: letters, digits, '-', '_' and '.', up to 64. */
  public static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
  /** Humans may be named more freely (a chat handle), still without spaces or quotes. */
  public static final Pattern HUMAN_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}");

  public Assignee {
    if (kind == null || name == null) {
      throw new IllegalArgumentException("an assignee has a kind and a name");
    }
  }

  public static Assignee ant(String name) {
    return new Assignee(Kind.ANT, name);
  }

  public static Assignee pool(String name) {
    return new Assignee(Kind.POOL, name.toLowerCase(Locale.ROOT));
  }

  public static Assignee human(String name) {
    return new Assignee(Kind.HUMAN, name);
  }

  /**
   * Reads {@code alpha}, {@code pool:docs}, {@code @alice} or {@code human:alice}; null or blank
   * is nobody (null). Throws {@link IllegalArgumentException} with a sentence for anything else.
   */
  public static Assignee parse(String s) {
    if (s == null || s.isBlank() || s.strip().equals("-") || s.strip().equalsIgnoreCase("nobody")) {
      return null;
    }
    String t = s.strip();
    if (t.startsWith("pool:")) {
      return checked(Kind.POOL, t.substring(5), NAME);
    }
    if (t.startsWith("@")) {
      return checked(Kind.HUMAN, t.substring(1), HUMAN_NAME);
    }
    if (t.startsWith("human:")) {
      return checked(Kind.HUMAN, t.substring(6), HUMAN_NAME);
    }
    return checked(Kind.ANT, t, NAME);
  }

  private static Assignee checked(Kind kind, String name, Pattern pattern) {
    if (!pattern.matcher(name).matches()) {
      throw new IllegalArgumentException("'" + name + "' is not a name for " + switch (kind) {
        case ANT -> "an ant";
        case POOL -> "a pool";
        case HUMAN -> "a human";
      } + " (letters, digits, '.', '_' and '-', up to 64)");
    }
    return kind == Kind.POOL ? pool(name) : new Assignee(kind, name);
  }

  /** How it is written back: {@code alpha}, {@code pool:docs}, {@code @alice}. */
  public String text() {
    return switch (kind) {
      case ANT -> name;
      case POOL -> "pool:" + name;
      case HUMAN -> "@" + name;
    };
  }

  @Override
  public String toString() {
    return text();
  }

  // ---- the values of the TaskTags search attribute (see TaskSearchAttributes.TAGS) ----

  /** Tag of a task an ant may take because it is assigned to it. */
  public static String takeAnt(String ant) {
    return "take:ant:" + ant;
  }

  /** Tag of a task an ant may take because it takes {@code pool} (assigned to the pool, or unassigned and labelled so). */
  public static String takePool(String pool) {
    return "take:pool:" + pool.toLowerCase(Locale.ROOT);
  }

  /** Tag of an unassigned task: ants whose {@code takes} holds {@code "*"} take it. */
  public static final String TAKE_ANY = "take:any";

  /** Tag naming the assignee as written ({@code assignee:alpha}, {@code assignee:pool:docs}, {@code assignee:@alice}). */
  public static String assigneeTag(Assignee a) {
    return "assignee:" + (a == null ? "-" : a.text());
  }

  public static String labelTag(String label) {
    return "label:" + label.toLowerCase(Locale.ROOT);
  }

  /**
   * Every tag of a task assigned to {@code a} with {@code labels}: its assignee, its labels, and
   * who may take it (a human's task is taken by no ant).
   */
  public static List<String> tags(Assignee a, List<String> labels) {
    java.util.TreeSet<String> t = new java.util.TreeSet<>();
    t.add(assigneeTag(a));
    for (String l : labels) {
      t.add(labelTag(l));
    }
    if (a == null) {
      t.add(TAKE_ANY);
      for (String l : labels) {
        t.add(takePool(l));
      }
    } else if (a.kind() == Kind.ANT) {
      t.add(takeAnt(a.name()));
    } else if (a.kind() == Kind.POOL) {
      t.add(takePool(a.name()));
    }
    return List.copyOf(t);
  }

  /** The tags an ant named {@code ant} that takes {@code takes} looks for (its TaskTags query). */
  public static List<String> takerTags(String ant, List<String> takes) {
    java.util.TreeSet<String> t = new java.util.TreeSet<>();
    t.add(takeAnt(ant));
    for (String p : takes) {
      t.add(p.equals("*") ? TAKE_ANY : takePool(p));
    }
    return List.copyOf(t);
  }
}
