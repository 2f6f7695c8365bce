package dev.colony.mcp;

import dev.colony.client.ColonySource;
import dev.colony.client.Verbs;
import dev.colony.secrets.Secrets;
import dev.colony.spec.AntSpec;
import dev.colony.visibility.AntCard;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A past (or running) session's transcript as the resource {@code colony://ant/{name}/session/{n}}
 * (docs/mcp.md). Transcripts live on the disk of the worker that ran the session, in
 * {@code <colony>/.colony/transcripts/<ant>/session-NNNNN.log} (owner-readable), never in Temporal:
 * a server that has the colony directory ({@code colony mcp --dir}) reads them there, any other
 * answers "resource not found" with where the transcript lives and why it is not served.
 *
 * <p>A transcript can be megabytes: it is served in pages of {@value #PAGE_BYTES} bytes, the last
 * one unless the URI asks for another ({@code ?page=K}, from 1); the first line says which part
 * it is and the URI of the part before. Each page is redacted with the cut in mind (a secret
 * straddling a page's edge is masked on both sides, {@link Secrets#redactSlice}), then made inert
 * and marked untrusted like every answer with an ant's text ({@link Answer}).
 *
 * <p>No path is built from unchecked input: the name must be an ant's name (letters, digits,
 * {@code .}, {@code _}, {@code -}, starting with a letter or digit), the session and the page
 * positive numbers; the file must be a regular file whose real path lies inside the colony's
 * transcripts directory (a symbolic link, or one of its directories linked, out of it is refused).
 */
final class SessionTranscripts {
  static final String TEMPLATE = "colony://ant/{name}/session/{n}";
  /** What looks like a transcript's URI (then checked by {@link #URI}). */
  static final Pattern LOOKS = Pattern.compile("colony://ant/[^/]*/session/.*");
  static final Pattern URI = Pattern.compile("colony://ant/(" + Verbs.ANT_NAME + ")/session/([0-9]{1,9})"
      + "(?:\\?page=([0-9]{1,9}))?");
  /** Bytes of a transcript one read answers at most. */
  static final int PAGE_BYTES = 32 * 1024;
  /** Characters of a page an answer carries at most (a page's text is shorter; redaction may lengthen it). */
  static final int MAX_CHARS = 2 * PAGE_BYTES;
  private static final Pattern HOST = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");
  /** A path named in a sentence: printable, no quotes or brackets. */
  private static final Pattern SHOWN_PATH = Pattern.compile("[A-Za-z0-9/._~+@ -]{1,300}");

  /** The colony directory; null when this server reads no transcript. */
  private final Path colonyDir;
  /** Why this server reads no transcript (a sentence's end), when {@link #colonyDir} is null. */
  private final String notServed;

  private SessionTranscripts(Path colonyDir, String notServed) {
    this.colonyDir = colonyDir;
    this.notServed = notServed;
  }

  /** Transcripts read from {@code colonyDir}'s {@code .colony/transcripts}. */
  static SessionTranscripts in(Path colonyDir) {
    return new SessionTranscripts(colonyDir.toAbsolutePath().normalize(), null);
  }

  /** No transcript read here, {@code why} said in each answer. */
  static SessionTranscripts notServed(String why) {
    return new SessionTranscripts(null, why);
  }

  static boolean isTranscript(String uri) {
    return LOOKS.matcher(uri).matches();
  }

  static String uri(String ant, int session) {
    return "colony://ant/" + ant + "/session/" + session;
  }

  /** The file of session {@code n} of {@code ant} under {@code transcripts} (as the worker names it). */
  static Path file(Path transcripts, String ant, int n) {
    return transcripts.resolve(ant).resolve(String.format("session-%05d.log", n));
  }

  /**
   * The transcript at {@code uri}; refused ({@link Args.Refused}: "resource not found") when the URI
   * is not one, the transcript is not on this machine, or this server reads none.
   */
  McpSchema.ReadResourceResult read(String uri, ColonySource source, Secrets secrets) {
    Matcher m = URI.matcher(uri);
    if (!m.matches()) {
      throw new Args.Refused("no resource '" + uri + "': a session's transcript is colony://ant/{name}/session/{n}, "
          + "{name} an ant's name (letters, digits, '.', '_', '-'), {n} the session's number from 1, "
          + "optionally ?page=K (K from 1)");
    }
    String ant = m.group(1);
    int n = Integer.parseInt(m.group(2));
    Integer page = m.group(3) == null ? null : Integer.parseInt(m.group(3));
    if (n < 1 || (page != null && page < 1)) {
      throw new Args.Refused("no resource '" + uri + "': sessions and pages count from 1");
    }
    String what = "the transcript of session " + n + " of ant '" + ant + "'";
    if (colonyDir == null) {
      throw new Args.Refused(absent(what, ant, n, source));
    }
    Path dir = colonyDir.resolve(".colony").resolve("transcripts");
    Path file = file(dir, ant, n);
    if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      throw new Args.Refused(absent(what, ant, n, source));
    }
    try {
      Path real = file.toRealPath();
      if (Files.isSymbolicLink(file) || !real.startsWith(dir.toRealPath()) || !Files.isRegularFile(real)) {
        throw new Args.Refused(what + " is not a file of the colony's transcripts directory: refused");
      }
      if (links(real) > 1) {
        // another name of a file that may live elsewhere (an ant could make one to a file it reads)
        throw new Args.Refused(what + " has other names (hard links): refused, as it may be a file from elsewhere");
      }
      return page(uri, ant, n, page, file, source.colony(), secrets);
    } catch (java.nio.file.AccessDeniedException e) {
      throw new Args.Refused(what + " is readable by its owner only (the worker's user), not by this server's user");
    } catch (IOException e) {
      throw new Args.Refused(what + " cannot be read here: " + e.getClass().getSimpleName());
    }
  }

  private McpSchema.ReadResourceResult page(String uri, String ant, int n, Integer asked, Path file, String colony,
      Secrets secrets) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      long size = ch.size();
      long pages = Math.max(1, (size + PAGE_BYTES - 1) / PAGE_BYTES);
      String what = "the transcript of session " + n + " of ant '" + ant + "'";
      if (asked != null && asked > pages) {
        throw new Args.Refused(what + " has " + Math.max(pages, 1) + (pages == 1 ? " page" : " pages") + ": no page "
            + asked);
      }
      long page = asked == null ? pages : asked;
      long start = (page - 1) * PAGE_BYTES;
      long end = Math.min(size, page * PAGE_BYTES);
      // Around the page, as much of the text as the longest secret (4 bytes a character at most):
      // a secret the page's edge cuts is found whole and masked on both pages.
      long context = 4L * secrets.longest() + 3;
      long readFrom = Math.max(0, start - context);
      ByteBuffer buf = ByteBuffer.allocate((int) (Math.min(size, end + context) - readFrom));
      while (buf.hasRemaining() && ch.read(buf, readFrom + buf.position()) >= 0) {
        // read on
      }
      byte[] b = buf.array();
      int got = buf.position();
      int from = align(b, (int) (start - readFrom), got);
      int to = align(b, (int) (end - readFrom), got);
      int first = align(b, 0, got);
      String before = new String(b, first, from - first, StandardCharsets.UTF_8);
      String after = new String(b, to, got - to, StandardCharsets.UTF_8);
      // The file's end is open: the worker may be writing the session still.
      // What an answer drops is dropped before the redaction (a mark inside a secret would hide it).
      String text = secrets.redactSlice(Answer.visible(before), Answer.visible(new String(b, from, to - from,
          StandardCharsets.UTF_8)), Answer.visible(after), readFrom + got >= size);
      Map<String, Object> data = new LinkedHashMap<>();
      data.put("ant", ant);
      data.put("session", n);
      data.put("page", page);
      data.put("pages", pages);
      data.put("bytes", size);
      data.put("from_byte", start);
      data.put("to_byte", end);
      data.put("before", page > 1 ? uri(ant, n) + "?page=" + (page - 1) : null);
      data.put("after", page < pages ? uri(ant, n) + "?page=" + (page + 1) : null);
      data.put("text", text);
      String summary;
      if (pages == 1) {
        summary = what + " in colony '" + colony + "', whole (" + size + " bytes)";
      } else {
        summary = what + " in colony '" + colony + "' is cut: page " + page + " of " + pages + ", bytes " + start
            + " to " + end + " of " + size + (page > 1 ? "; the part before: " + uri(ant, n) + "?page=" + (page - 1) : "")
            + (page < pages ? "; the part after: " + uri(ant, n) + "?page=" + (page + 1) : "");
      }
      return Answer.of(summary, data).untrusted(what + " (what its agent read and wrote)")
          .resource(uri, secrets, MAX_CHARS);
    }
  }

  /** The file's hard links (1 where the file system does not say). */
  private static int links(Path file) throws IOException {
    try {
      return ((Number) Files.getAttribute(file, "unix:nlink", LinkOption.NOFOLLOW_LINKS)).intValue();
    } catch (UnsupportedOperationException | IllegalArgumentException e) {
      return 1;
    }
  }

  /** {@code at}, moved past the continuation bytes of a character begun before it (UTF-8), at most {@code limit}. */
  private static int align(byte[] b, int at, int limit) {
    int i = Math.min(at, limit);
    while (i < limit && i - at < 3 && (b[i] & 0xC0) == 0x80) {
      i++;
    }
    return i;
  }

  /**
   * Why the transcript is not served: no such ant or session, else where it lives and why it is not
   * read here (not in this directory, or this server reads none).
   */
  private String absent(String what, String ant, int n, ColonySource source) {
    ColonySource.Detail d = null;
    Object config = null;
    boolean answered = false;
    try {
      d = source.ant(ant);
      answered = true;
      config = d == null ? null : source.config(ant);
    } catch (RuntimeException e) {
      // Temporal did not answer: said with what is known
    }
    String here = colonyDir == null ? "" : " (" + shown(colonyDir) + ")";
    if (answered && d == null) {
      return "no ant '" + ant + "' runs or ran in colony '" + source.colony() + "'" + (colonyDir == null ? ""
          : ", and no transcript of its session " + n + " is in this colony directory" + here);
    }
    AntCard card = d == null || d.row() == null ? null : d.row().card();
    if (card != null && card.session() < n) {
      return "ant '" + ant + "' has begun " + (card.session() == 0 ? "no session" : card.session() == 1
          ? "1 session" : card.session() + " sessions") + ": it has no session " + n;
    }
    String where = where(ant, n, d, config);
    return colonyDir == null ? what + " is " + where + ": " + notServed
        : what + " is not in this colony directory" + here + ": it is " + where
            + ", and transcripts stay on the disk of the worker that wrote them";
  }

  /**
   * "on the disk of the worker that ran it (DIR/.colony/transcripts/ANT/session-NNNNN.log; the ant's
   * host is 'h')": the directory from the ant's config as its run loaded it, the host from its row.
   */
  private static String where(String ant, int n, ColonySource.Detail d, Object config) {
    String host = d == null || d.row() == null ? null : d.row().host();
    String dir = config instanceof AntSpec spec ? spec.colonyDir() : null;
    List<String> parts = new ArrayList<>();
    if (dir != null && SHOWN_PATH.matcher(dir).matches()) {
      parts.add(file(Path.of(dir, ".colony", "transcripts"), ant, n).toString());
    }
    if (host != null && HOST.matcher(host).matches()) {
      parts.add("the ant's host is '" + host + "'");
    }
    return "on the disk of the worker that ran it" + (parts.isEmpty() ? "" : " (" + String.join("; ", parts) + ")");
  }

  private static String shown(Path p) {
    String s = p.toString();
    return SHOWN_PATH.matcher(s).matches() ? s : "the colony directory";
  }

  /**
   * The transcripts of the ant's last sessions as URIs, newest first, for its live view; null when
   * this server reads none.
   */
  List<Map<String, Object>> listed(String ant, AntCard card) {
    if (colonyDir == null || card == null) {
      return null;
    }
    List<Map<String, Object>> out = new ArrayList<>();
    if (card.session() > 0 && card.sessionRunning()) {
      out.add(Map.of("session", card.session(), "outcome", "running", "uri", uri(ant, card.session())));
    }
    List<AntCard.SessionRecord> recent = card.recent();
    for (int i = recent.size() - 1; i >= 0; i--) {
      AntCard.SessionRecord s = recent.get(i);
      if (s.number() > 0 && !(card.sessionRunning() && s.number() == card.session())) {
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("session", s.number());
        x.put("outcome", s.outcome());
        x.put("uri", uri(ant, s.number()));
        out.add(x);
      }
    }
    return out;
  }
}
