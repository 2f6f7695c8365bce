package dev.colony.secrets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class SecretsTest {
  @Test
  void everyResolvedValueIsMaskedWhateverTheVariableIsCalled() {
    Secrets s = new Secrets();
    assertEquals("postgres://app:hunter2-db@db", s.resolve("postgres://app:${DB_PASS}@db", Map.of("DB_PASS", "hunter2-db")));
    assertEquals("login with ${DB_PASS} now", s.redact("login with hunter2-db now"));
    assertTrue(s.contains("xx hunter2-db"));
  }

  @Test
  void urlEncodedFormsAndLongerValuesFirst() {
    Secrets s = new Secrets();
    s.register("PASS", "p@ss word/1");
    s.register("SHORT", "abcd");
    s.register("LONG", "abcdefgh");
    assertEquals("url=https://u:${PASS}@h", s.redact("url=https://u:p%40ss+word%2F1@h"));
    assertEquals("${LONG} ${SHORT}", s.redact("abcdefgh abcd"));
  }

  @Test
  void secretLookingNamesAreMaskedEvenWhenNotReferenced() {
    Secrets s = new Secrets();
    s.registerSecretLookingNames(Map.of("GITHUB_TOKEN", "ghp_abcdefghijkl", "HOME", "/root/home-directory",
        "API_KEY", "short"));
    assertEquals("token ${GITHUB_TOKEN}", s.redact("token ghp_abcdefghijkl"));
    assertEquals("cd /root/home-directory short", s.redact("cd /root/home-directory short"));
  }

  @Test
  void anOtlpHeadersVariableIsMaskedWholeAndByItsValues() {
    Secrets s = new Secrets();
    s.registerSecretLookingNames(Map.of("OTEL_EXPORTER_OTLP_HEADERS",
        "authorization=Bearer collector-token-123,x-scope-orgid=tenant-blue"));
    assertEquals("env: OTEL_EXPORTER_OTLP_HEADERS=${OTEL_EXPORTER_OTLP_HEADERS}",
        s.redact("env: OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer collector-token-123,x-scope-orgid=tenant-blue"));
    assertEquals("the token ${OTEL_EXPORTER_OTLP_HEADERS}, for ${OTEL_EXPORTER_OTLP_HEADERS}",
        s.redact("the token collector-token-123, for tenant-blue"));
  }

  @Test
  void valuesTooShortToMaskAreReportedNotMasked() {
    Secrets s = new Secrets();
    s.register("PORT", "80");
    assertEquals("port 80", s.redact("port 80"));
    assertEquals(List.of("PORT"), Secrets.tooShortToMask(List.of("PORT", "UNSET"), Map.of("PORT", "80")));
    assertFalse(s.contains("80"));
  }

  @Test
  void aValueInsideTheColonysOwnPathsStaysSoTheAntsCommandIsNotChanged() {
    // A process id given to an ant as ${WORKER_PID} was also part of the temporary folder the
    // colony lived in: masking it there made the ant's command "…/${WORKER_PID}4/colony/…".
    Secrets s = new Secrets();
    s.register("WORKER_PID", "25655");
    String colony = "/tmp/junit-1225655417/colony";
    s.registerPublic(colony);
    assertEquals(colony + "/scripts/alice.sh", s.redact(colony + "/scripts/alice.sh"));
    assertEquals("kill -9 ${WORKER_PID} in " + colony + ", then ${WORKER_PID}",
        s.redact("kill -9 25655 in " + colony + ", then 25655"));
    // Outside the public path, the same digits are masked, also when they touch it.
    assertEquals("${WORKER_PID}" + colony, s.redact("25655" + colony));
  }

  @Test
  void publicTextShorterThanTheSecretDoesNotProtectIt() {
    Secrets s = new Secrets();
    s.register("TOKEN", "abcdefgh-long");
    s.registerPublic("/x");
    s.registerPublic("h-l");
    assertEquals("/x/${TOKEN}/", s.redact("/x/abcdefgh-long/"));
  }

  @Test
  void aSliceOfALongerTextMasksEverySecretThatOverlapsItWhereverTheCutFalls() {
    Secrets s = new Secrets();
    s.register("ANTHROPIC_API_KEY", "sk-live-0123456789abcdef");
    s.register("SHORT", "k9Zq2x");
    String whole = "the key sk-live-0123456789abcdef, a short k9Zq2x, and again sk-live-0123456789abcdef";
    boolean[] secret = new boolean[whole.length()];
    for (String v : List.of("sk-live-0123456789abcdef", "k9Zq2x")) {
      for (int at = whole.indexOf(v); at >= 0; at = whole.indexOf(v, at + 1)) {
        java.util.Arrays.fill(secret, at, at + v.length(), true);
      }
    }
    // Every cut, every page width: a page shows exactly the characters that are no secret's.
    for (int width = 1; width <= 12; width++) {
      for (int from = 0; from < whole.length(); from += width) {
        int to = Math.min(whole.length(), from + width);
        String page = s.redactSlice(whole.substring(Math.max(0, from - s.longest()), from), whole.substring(from, to),
            whole.substring(to, Math.min(whole.length(), to + s.longest())), false);
        StringBuilder plain = new StringBuilder();
        for (int i = from; i < to; i++) {
          if (!secret[i]) {
            plain.append(whole.charAt(i));
          }
        }
        assertEquals(plain.toString(), page.replace("${ANTHROPIC_API_KEY}", "").replace("${SHORT}", ""),
            "page [" + from + ", " + to + ") = '" + page + "'");
      }
    }
    assertEquals("${SHORT}", s.redactSlice("a short k9Z", "q2x", ", and", false), "3|3 split: masked");
    assertEquals("the key ${ANTHROPIC_API_KEY}", s.redactSlice("", "the key sk-live-01", "23456789abcdef", false));
    // A transcript still written: its end may be a secret's beginning.
    assertEquals("export T=${ANTHROPIC_API_KEY}", s.redactSlice("", "export T=sk-live-01", "", true));
    assertEquals("export T=sk-", s.redactSlice("", "export T=sk-", "", true), "fewer than 4 characters: ordinary text");
    assertEquals("export T=sk-live-01", s.redactSlice("", "export T=sk-live-01", "", false), "the text's true end");
    // The page before the last one, its context reaching the end of a text still written.
    assertEquals("T=${ANTHROPIC_API_KEY}", s.redactSlice("export ", "T=sk-l", "ive-01", true));
    assertEquals("${ANTHROPIC_API_KEY}", s.redactSlice("export T=sk-l", "ive-01", "", true));
    // As redact() does, a value inside the colony's own path stays (a transcript is full of them).
    s.register("WORKER_PID", "25655");
    s.registerPublic("/tmp/junit-1225655417/colony");
    assertEquals("25655417/colony/x, pid ${WORKER_PID}",
        s.redactSlice("cd /tmp/junit-12", "25655417/colony/x, pid 25655", "", false));
  }
}
