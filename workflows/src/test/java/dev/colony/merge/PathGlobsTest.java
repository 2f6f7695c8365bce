package dev.colony.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(30)
class PathGlobsTest {
  @ParameterizedTest(name = "{0} ~ {1}: {2}")
  @CsvSource({
      "src/api/**, src/api/**, true",
      "src/api/**, src/api/user.java, true",
      "src/api/**, src/web/**, false",
      "src/**, src/api/x.java, true",
      "**, anything/at/all, true",
      "*.md, docs/a.md, true", // conservative: the root wildcard could lead anywhere
      "docs/*.md, docs/a/b.txt, true", // conservative
      "docs/*.md, src/*.md, false",
      "README.md, README.md, true",
      "README.md, LICENSE, false",
      "src/api, src/api/x.java, true", // a literal directory covers its tree
      "src/api, src/apix/y.java, false",
      "./src/api/, src/api/a.java, true",
      "/src/api/**, src/web/a.java, false",
      "'src/{api,web}/**', src/api/a.java, true",
      "src/a?i/**, src/web/x, true",
      "lib/[ab]/*.c, lib2/a/x.c, false",
      "a/b/c/**, a/b/**, true",
      "a/b/c/**, a/x/**, false",
  })
  void overlapIsConservativeOnTheLiteralPrefix(String a, String b, boolean expected) {
    assertEquals(expected, PathGlobs.overlap(a, b), a + " vs " + b);
    assertEquals(expected, PathGlobs.overlap(b, a), "symmetric: " + b + " vs " + a);
  }

  @ParameterizedTest(name = "{0} matches {1}: {2}")
  @CsvSource({
      "src/api/**, src/api/a.java, true",
      "src/api/**, src/api/deep/b/c.java, true",
      "src/api/**, src/apix/a.java, false",
      "src/*.java, src/a.java, true",
      "src/*.java, src/x/a.java, false",
      "**/*.md, README.md, true",
      "**/*.md, docs/x/y.md, true",
      "**/*.md, docs/x/y.txt, false",
      "docs/**/index.md, docs/index.md, true",
      "docs/**/index.md, docs/a/b/index.md, true",
      "src/?.c, src/a.c, true",
      "src/?.c, src/ab.c, false",
      "src/[ab].c, src/b.c, true",
      "src/[!ab].c, src/b.c, false",
      "src/[!ab].c, src/c.c, true",
      "'src/{api,web}/*.ts', src/web/x.ts, true",
      "'src/{api,web}/*.ts', src/db/x.ts, false",
      "README.md, README.md, true",
      "src, src/a/b.c, true",
      "src, srcx/a.c, false",
      "src/, src/a.c, true",
      "a.b+c(d), a.b+c(d), true",
      "a.b+c(d)/*, a.b+c(d)/x, true",
      "a.b, aXb, false",
  })
  void matchesAFileAsAShellWould(String glob, String path, boolean expected) {
    assertEquals(expected, PathGlobs.matches(glob, path), glob + " on " + path);
  }

  @Test
  void overlappingNamesTheHoldersGlobsInItsOrder() {
    assertEquals(List.of("src/api/**", "docs/**"),
        PathGlobs.overlapping(List.of("src/api/x.java", "docs/a.md"), List.of("src/api/**", "web/**", "docs/**")));
    assertEquals(List.of(), PathGlobs.overlapping(List.of("src/a/**"), List.of("src/b/**")));
    assertEquals(List.of(), PathGlobs.overlapping(List.of(), List.of("src/b/**")));
  }

  @Test
  void normalizeReadsDirectoriesAndLeadingDots() {
    assertEquals("src/**", PathGlobs.normalize("./src/"));
    assertEquals("src/a", PathGlobs.normalize("/src//a"));
    assertEquals("**", PathGlobs.normalize("."));
    assertNull(PathGlobs.normalize("   "));
    assertNull(PathGlobs.normalize(null));
  }

  @Test
  void badGlobsAreNamedInOneSentence() {
    assertNull(PathGlobs.problem("src/**"));
    assertNotNull(PathGlobs.problem(""));
    assertTrue(PathGlobs.problem("../etc/**").contains("leaves the repository"));
    // A malformed set is refused where globs come in, and never throws where they are matched.
    assertTrue(PathGlobs.problem("src/[z-a]*").contains("not a valid pattern"), PathGlobs.problem("src/[z-a]*"));
    assertTrue(PathGlobs.matches("src/[z-a]*", "src/x"));
    assertTrue(PathGlobs.problem("a\u001b[2Jb").contains("control character"));
    assertTrue(PathGlobs.problem("x".repeat(201)).contains("longer than"));
  }

  @Test
  void aGlobNeverFailsToOverlapAFileItMatches() {
    List<String> globs = List.of("src/api/**", "docs/*.md", "**/*.java", "README.md", "lib/{a,b}/*.c", "x/?/y");
    List<String> files = List.of("src/api/a.java", "docs/x.md", "deep/d/e.java", "README.md", "lib/a/m.c", "x/1/y",
        "other.txt");
    for (String g : globs) {
      for (String f : files) {
        if (PathGlobs.matches(g, f)) {
          assertTrue(PathGlobs.overlap(g, f), g + " matches " + f + " so they overlap");
          for (String g2 : globs) {
            if (PathGlobs.matches(g2, f)) {
              assertTrue(PathGlobs.overlap(g, g2), g + " and " + g2 + " share " + f);
            }
          }
        }
      }
    }
    assertFalse(PathGlobs.matches("**/*.java", "other.txt"));
  }
}
