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
  void aWindowCutOutOfALongerTextMasksTheSecretsThatStraddleItsCuts() {
    Secrets s = new Secrets();
    s.register("ANTHROPIC_API_KEY", "sk-live-0123456789abcdef");
    String whole = "the key sk-live-0123456789abcdef, and again sk-live-0123456789abcdef";
    // cut inside both occurrences: the page before ends with the key's beginning, the page after starts with its end
    String before = whole.substring(0, 16);
    String after = whole.substring(whole.length() - 10);
    assertEquals("the key ${ANTHROPIC_API_KEY}", s.redactWindow(before, false, true));
    assertEquals("${ANTHROPIC_API_KEY}", s.redactWindow(after, true, false));
    String middle = whole.substring(16, whole.length() - 10);
    assertEquals("${ANTHROPIC_API_KEY}, and again ${ANTHROPIC_API_KEY}", s.redactWindow(middle, true, true));
    assertEquals(before, s.redactWindow(before, false, false), "a text not cut: whole occurrences only");
    assertEquals("the key sk-", s.redactWindow("the key sk-", false, true), "fewer than 4 characters: ordinary text");
    assertEquals("the key ${ANTHROPIC_API_KEY} end", s.redactWindow("the key sk-live-0123456789abcdef end", true, true));
  }
}
