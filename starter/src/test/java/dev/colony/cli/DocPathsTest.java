package dev.colony.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The documents name only what exists: every repository path in backticks in {@code README.md}
 * and {@code docs/*.md} (say {@code workflows/src/main/java/dev/colony/ant/Timers.java} in the
 * code map of {@code docs/architecture.md}), every relative link, and every {@code #anchor} a link
 * points at. A rename that leaves a document behind fails here, naming the document and the path.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DocPathsTest {
  /** A path in backticks: no spaces or placeholders, at least one slash. */
  private static final Pattern CODE = Pattern.compile("`([A-Za-z0-9_.\\-/]+/[A-Za-z0-9_.\\-/]*)`");
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

  private static List<Path> documents(Path repo) throws IOException {
    List<Path> docs = new ArrayList<>();
    docs.add(repo.resolve("README.md"));
    try (Stream<Path> s = Files.list(repo.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    return docs;
  }

  /** Paths from the repository root whose first part is a tracked top-level entry (a module, bin, docs, ...). */
  private static boolean looksLikeRepoPath(Path repo, String path) {
    // Made when it runs: build output, a colony's state, the logs an example's ants write.
    if (path.contains("/target/") || path.contains("/.colony/") || path.matches("examples/[^/]+/logs/.*")
        || path.startsWith("/") || path.contains("//")
        || path.contains("...")) {
      return false; // build output, a colony's runtime files, absolute paths and elisions are not the repository's
    }
    String first = path.substring(0, path.indexOf('/'));
    // A directory at the root (a module, bin, docs, examples, ...): `colony/<ant>` names a workflow, not the launcher.
    return !first.isEmpty() && !first.equals(".colony") && !first.equals(".tools") && !first.equals("..")
        && Files.isDirectory(repo.resolve(first));
  }

  @Test
  void everyRepositoryPathInBackticksExists() throws IOException {
    Path repo = GeneratedDocsTest.repo();
    List<String> missing = new ArrayList<>();
    int checked = 0;
    for (Path doc : documents(repo)) {
      String text = withoutGeneratedBlocks(Files.readString(doc, StandardCharsets.UTF_8));
      Matcher m = CODE.matcher(text);
      while (m.find()) {
        String path = m.group(1);
        if (looksLikeRepoPath(repo, path)) {
          checked++;
          if (!Files.exists(repo.resolve(path))) {
            missing.add(repo.relativize(doc) + ": `" + path + "`");
          }
        }
      }
    }
    assertTrue(checked > 30, "too few paths found to check (" + checked + "): is the pattern still right?");
    assertTrue(missing.isEmpty(), "paths named in the documents that do not exist (renamed? update the document):\n  "
        + String.join("\n  ", missing));
  }

  @Test
  void everyRelativeLinkAndAnchorResolves() throws IOException {
    Path repo = GeneratedDocsTest.repo();
    List<String> broken = new ArrayList<>();
    for (Path doc : documents(repo)) {
      String text = Files.readString(doc, StandardCharsets.UTF_8);
      Matcher m = LINK.matcher(text);
      while (m.find()) {
        String link = m.group(1);
        if (link.matches("^[a-z]+:.*")) {
          continue; // http(s), mailto
        }
        int hash = link.indexOf('#');
        String file = hash < 0 ? link : link.substring(0, hash);
        String anchor = hash < 0 ? null : link.substring(hash + 1);
        Path target = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
        if (!Files.exists(target)) {
          broken.add(repo.relativize(doc) + ": (" + link + ") names no file");
        } else if (anchor != null && target.toString().endsWith(".md")
            && !anchors(Files.readString(target, StandardCharsets.UTF_8)).contains(anchor)) {
          broken.add(repo.relativize(doc) + ": (" + link + ") names no heading of " + repo.relativize(target));
        }
      }
    }
    assertTrue(broken.isEmpty(), "broken links:\n  " + String.join("\n  ", broken));
  }

  /** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
  static Set<String> anchors(String markdown) {
    Set<String> out = new HashSet<>();
    boolean fence = false;
    for (String line : markdown.split("\n")) {
      if (line.startsWith("```")) {
        fence = !fence;
      }
      if (fence || !line.matches("^#{1,6} .*")) {
        continue;
      }
      String slug = line.replaceFirst("^#+ ", "").trim().toLowerCase(Locale.ROOT)
          .replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
      String s = slug;
      for (int n = 1; !out.add(s); n++) {
        s = slug + "-" + n;
      }
    }
    return out;
  }

  private static String withoutGeneratedBlocks(String text) {
    return text.replaceAll("(?s)<!-- generated:([a-z-]+) -->.*?<!-- /generated:\\1 -->", "");
  }
}
