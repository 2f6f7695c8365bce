package dev.colony.testing;

import dev.colony.compat.Compatibility;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the replay tests need of the compatibility ledger's sunset: which history directories this
 * build leaves to older builds, and whether a replay failed only for want of a sunset change's old
 * path (a run that began on a build without the change reaches it with no marker).
 */
public final class Sunset {
  private static final Pattern UNSUPPORTED = Pattern.compile("Version -1 of changeId (\\S+) is not supported");

  private Sunset() {}

  /** The history directories (relative to src/test/resources) this build does not replay, and the last build that does. */
  public static Map<String, String> lastReplayedBy() {
    Map<String, String> out = new TreeMap<>();
    Compatibility.HISTORIES.forEach(h -> {
      if (h.lastReplayedBy() != null) {
        out.put(h.dir(), h.lastReplayedBy());
      }
    });
    return out;
  }

  /** The sunset change whose missing marker failed this replay; null for any other failure. */
  public static String changeNeeded(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      Matcher m = UNSUPPORTED.matcher(String.valueOf(c.getMessage()));
      if (m.find()) {
        String id = m.group(1);
        return Arrays.stream(Compatibility.Change.values()).anyMatch(ch -> ch.id().equals(id) && ch.sunsetIn() != null)
            ? id : null;
      }
    }
    return null;
  }

  /** The line a replay test prints for a history it leaves to older builds. */
  public static String skipped(String history, String change, String lastBuild) {
    return "skipped " + history + ": it needs the old path of " + change + ", sunset in " + Compatibility.RELEASE
        + "; the builds up to " + lastBuild + " replay it";
  }
}
