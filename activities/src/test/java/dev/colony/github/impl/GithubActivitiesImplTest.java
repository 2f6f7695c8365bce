package dev.colony.github.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.engine.PromptBuilder;
import dev.colony.github.IssuePage;
import dev.colony.spec.AntSpec;
import dev.colony.trigger.IssueEvent;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class GithubActivitiesImplTest {
  @TempDir
  Path dir;

  @Test
  void pagesAreFollowedPullRequestsLeftOutAndAnUnchangedRepositoryIsA304() throws Exception {
    try (FakeGithub gh = new FakeGithub()) {
      gh.pageSize = 2;
      for (int i = 1; i <= 5; i++) {
        gh.issue("o/r", i, "issue " + i, List.of("l" + i), "body " + i);
      }
      gh.pullRequest("o/r", 6, "a PR", List.of());
      Files.writeString(dir.resolve(".env"), "GH=tok-123456\nCOLONY_GITHUB_API_URL=" + gh.url() + "\n");
      GithubActivitiesImpl a = new GithubActivitiesImpl(new OkHttpClient());
      IssuePage first = a.listOpenIssues(dir.toString(), "GH", "o/r", null);
      assertEquals(List.of(1, 2, 3, 4, 5), first.issues().stream().map(IssueEvent::number).toList());
      assertEquals(List.of("l3"), first.issues().get(2).labels());
      assertEquals("https://github.com/o/r/issues/3", first.issues().get(2).url());
      IssuePage again = a.listOpenIssues(dir.toString(), "GH", "o/r", first.etag());
      assertTrue(again.notModified());
      assertEquals(1, gh.notModified.get());
      gh.rateLimitNext(1);
      IssuePage limited = a.listOpenIssues(dir.toString(), "GH", "o/r", null);
      assertTrue(limited.notModified() && limited.retryAfterSeconds() > 0, limited.toString());
      ApplicationFailure missing = assertThrows(ApplicationFailure.class,
          () -> a.listOpenIssues(dir.toString(), "GH", "not/there/x", null));
      assertTrue(missing.isNonRetryable());
    }
  }

  @Test
  void closedIssuesAreListedSinceATimeWithTheNewestUpdate() throws Exception {
    try (FakeGithub gh = new FakeGithub()) {
      gh.pageSize = 2;
      for (int i = 1; i <= 5; i++) {
        gh.issue("o/r", i, "issue " + i, List.of("bug"), "body " + i);
      }
      gh.close("o/r", 2, "2026-03-01T10:00:00Z");
      gh.close("o/r", 4, "2026-03-01T09:00:00Z");
      gh.close("o/r", 5, "2026-02-01T00:00:00Z");
      gh.close("o/r", 1, "2026-03-02T00:00:00Z");
      Files.writeString(dir.resolve(".env"), "GH=tok-123456\nCOLONY_GITHUB_API_URL=" + gh.url() + "\n");
      GithubActivitiesImpl a = new GithubActivitiesImpl(new OkHttpClient());
      IssuePage closed = a.listClosedIssues(dir.toString(), "GH", "o/r", "2026-03-01T00:00:00Z", null);
      assertEquals(List.of(4, 2, 1), closed.issues().stream().map(IssueEvent::number).toList(), "oldest update first, over pages");
      assertTrue(closed.issues().stream().allMatch(IssueEvent::closed));
      assertEquals("2026-03-02T00:00:00Z", closed.newestUpdate());
      assertTrue(gh.log.stream().anyMatch(l -> l.contains("state=closed") && l.contains("since=2026-03-01T00%3A00%3A00Z")),
          gh.log.toString());
      IssuePage open = a.listOpenIssues(dir.toString(), "GH", "o/r", null);
      assertEquals(List.of(3), open.issues().stream().map(IssueEvent::number).toList());
      assertTrue(open.issues().stream().noneMatch(IssueEvent::closed));
      IssuePage again = a.listClosedIssues(dir.toString(), "GH", "o/r", "2026-03-01T00:00:00Z", closed.etag());
      assertTrue(again.notModified());
    }
  }

  @Test
  void theSessionPromptCarriesTheIssueBounded() {
    IssueEvent e = new IssueEvent("acme/app", 42, "Crash on save", "https://github.com/acme/app/issues/42",
        List.of("bug", "p1"), "x".repeat(50_000));
    AntSpec spec = AntSpec.builder().colony("c").name("triage").description("d").instructions("i")
        .engine(dev.colony.spec.EngineKind.COMMAND).claude(dev.colony.spec.ClaudeSpec.DEFAULTS)
        .gemini(dev.colony.spec.GeminiSpec.DEFAULTS).githubRepos(List.of("acme/app")).timezone("UTC")
        .autonomy(dev.colony.spec.Autonomy.HUMAN).confirmation(dev.colony.spec.ConfirmationSpec.NONE)
        .toolCalls(dev.colony.spec.ToolCallLogging.IMPACTFUL).lmOutput(dev.colony.spec.LmOutput.DISCORD)
        .recovery(dev.colony.spec.RecoveryPolicy.RESUME).pollIntervalSeconds(0)
        .confirmationTimeoutSeconds(1800).sessionTimeoutSeconds(3600).heartbeatTimeoutSeconds(30)
        .continueAsNewEvery(100).workspace(new dev.colony.spec.WorkspaceSpec("/tmp", null, null))
        .colonyDir("/tmp").sourceFile("ants/triage.yaml").build();
    String prompt = PromptBuilder.build(spec, 3, List.of(), e);
    assertTrue(prompt.contains("- Repository: acme/app\n- Issue: #42 Crash on save\n"
        + "- URL: https://github.com/acme/app/issues/42\n- Labels: bug, p1\n"), prompt);
    assertTrue(prompt.contains("[issue body cut at 4000 characters]"));
    assertTrue(prompt.length() < 6_000, "bounded: " + prompt.length());
  }
}
