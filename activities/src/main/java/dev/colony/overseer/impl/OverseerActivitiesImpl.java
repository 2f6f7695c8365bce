package dev.colony.overseer.impl;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.errors.AnthropicIoException;
import com.anthropic.errors.AnthropicServiceException;
import com.anthropic.models.messages.ContentBlock;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.TextBlock;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.genai.Client;
import com.google.genai.errors.ApiException;
import com.google.genai.errors.GenAiIOException;
import com.google.genai.types.Content;
import com.google.genai.types.GenerateContentConfig;
import com.google.genai.types.GenerateContentResponse;
import com.google.genai.types.HttpOptions;
import com.google.genai.types.HttpRetryOptions;
import com.google.genai.types.Part;
import com.google.genai.types.ThinkingConfig;
import dev.colony.config.Environment;
import dev.colony.overseer.EvaluationRequest;
import dev.colony.overseer.OverseerActivities;
import dev.colony.overseer.OverseerSpec;
import dev.colony.overseer.Pattern;
import dev.colony.overseer.Turn;
import dev.colony.overseer.Verdict;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * One evaluation: the ant's task and recent turns go to the overseer's model (Claude through
 * the Anthropic Java SDK, or Gemini through the Gen AI SDK), which answers with a JSON verdict.
 * The API key is read here, from the worker's environment or the colony's {@code .env}; it never
 * enters Temporal. Failures are typed so the workflow's retries make sense: a missing or refused
 * key and an unreadable answer are not retried, a rate limit or an outage is (then skipped).
 */
public final class OverseerActivitiesImpl implements OverseerActivities {
  private static final ObjectMapper JSON = new ObjectMapper();
  // failure type names as recorded in histories: never renamed
  static final String NOT_RETRYABLE = "SupervisorCallRefused";
  static final String RETRYABLE = "SupervisorCallFailed";

  static final String SYSTEM = String.join("\n",
      "You supervise an autonomous coding agent that works without a human watching. You read what it was",
      "asked to do and its most recent turns (tool calls with their results, and what it said), and decide",
      "whether it is working productively.",
      "",
      "Be conservative: most of the time the answer is OK. Flag a pattern only when it is clearly present:",
      "- SPIRALING: the same approach retried three or more times with no meaningful progress.",
      "- DRIFT: the work has moved away from the task it was given.",
      "- STALLING: long gaps with no meaningful output.",
      "- SHALLOW: a complex decision taken without enough reasoning.",
      "",
      "When you flag a pattern, write a whisper: one or two sentences addressed to the agent in the second",
      "person, concrete and actionable (what to stop, what to try instead, whom to ask). You never act for",
      "the agent: you do not edit files, run tools or speak as the agent.",
      "",
      "Answer with one JSON object and nothing else:",
      "{\"verdict\": \"OK|SPIRALING|DRIFT|STALLING|SHALLOW\", \"whisper\": \"...\", \"reason\": \"...\"}",
      "where reason is one sentence for the humans who run the agent. For OK, whisper and reason may be empty.");

  private final Function<Path, Map<String, String>> environment;
  private final dev.colony.secrets.Secrets secrets;

  public OverseerActivitiesImpl(dev.colony.secrets.Secrets secrets) {
    this(Environment::forColony, secrets);
  }

  /**
   * @param environment the variables a colony's calls see (the worker's plus its {@code .env})
   * @param secrets the worker's redactor: the key variables read here are masked wherever they appear
   */
  public OverseerActivitiesImpl(Function<Path, Map<String, String>> environment, dev.colony.secrets.Secrets secrets) {
    this.environment = environment;
    this.secrets = secrets;
  }

  @Override
  public Verdict evaluate(EvaluationRequest request) {
    OverseerSpec spec = request.overseer() == null ? OverseerSpec.DEFAULTS : request.overseer();
    Map<String, String> env = environment.apply(Path.of(request.colonyDir() == null ? "." : request.colonyDir()));
    secrets.registerSecretLookingNames(env);
    String user = prompt(request);
    Answer answer = OverseerSpec.GEMINI.equals(spec.provider()) ? gemini(spec, env, user) : claude(spec, env, user);
    try {
      return parse(answer.text()).costing(answer.costUsd());
    } catch (ApplicationFailure noVerdict) {
      // The call was paid for all the same: its cost travels in the failure, for the ant's spend.
      throw ApplicationFailure.newNonRetryableFailure(noVerdict.getOriginalMessage(), noVerdict.getType(),
          answer.costUsd());
    }
  }

  /** The model's text and what the call cost ({@link OverseerPrices}). */
  record Answer(String text, double costUsd) {}

  /** The evaluation's user message: the task, the window, and where the ladder stands. */
  static String prompt(EvaluationRequest r) {
    StringBuilder sb = new StringBuilder();
    sb.append("Agent: ").append(r.ant()).append("\n\n## Its task\n").append(r.task() == null ? "" : r.task().strip())
        .append("\n\n## Its last ").append(r.window().size()).append(" turns, oldest first\n");
    int i = 1;
    for (Turn t : r.window()) {
      sb.append(i++).append(". ").append(t.describe()).append('\n');
    }
    sb.append("\n## History\n");
    if (r.strikes() == 0) {
      sb.append("No pattern was flagged at the previous evaluation.\n");
    } else {
      sb.append("The previous ").append(r.strikes() == 1 ? "evaluation" : r.strikes() + " evaluations in a row")
          .append(" flagged ").append(r.lastPattern()).append(" and whispered to the agent. If the pattern")
          .append(" persists, flag it again; if the agent has recovered, answer OK.\n");
    }
    return sb.toString();
  }

  /** Reads the model's answer: the first JSON object in it. */
  static Verdict parse(String answer) {
    String text = answer == null ? "" : answer;
    int start = text.indexOf('{');
    int end = text.lastIndexOf('}');
    if (start < 0 || end < start) {
      throw refused("the overseer model answered without a verdict: " + clip(text, 200));
    }
    JsonNode n;
    try {
      n = JSON.readTree(text.substring(start, end + 1));
    } catch (IOException e) {
      throw refused("the overseer model's verdict is not JSON: " + clip(text, 200));
    }
    String v = n.path("verdict").asText("").strip().toUpperCase(Locale.ROOT);
    Pattern pattern;
    try {
      pattern = Pattern.valueOf(v);
    } catch (IllegalArgumentException e) {
      throw refused("the overseer model gave an unknown verdict '" + clip(v, 40) + "'");
    }
    return new Verdict(pattern, clip(n.path("whisper").asText(""), 1000), clip(n.path("reason").asText(""), 300));
  }

  /** One client per endpoint and credential, kept for the worker's life (its connection pool is reused). */
  private static final Map<String, AnthropicClient> CLIENTS = new java.util.concurrent.ConcurrentHashMap<>();

  private static Answer claude(OverseerSpec spec, Map<String, String> env, String user) {
    String key = env.get("ANTHROPIC_API_KEY");
    String token = env.get("ANTHROPIC_AUTH_TOKEN"); // a gateway's or proxy's bearer token
    if ((key == null || key.isBlank()) && (token == null || token.isBlank())) {
      throw refused("ANTHROPIC_API_KEY is not set on this worker (environment or the colony's .env)");
    }
    String base = env.get("ANTHROPIC_BASE_URL");
    boolean useKey = key != null && !key.isBlank();
    AnthropicClient client = CLIENTS.computeIfAbsent((useKey ? "k" + key : "t" + token) + "\n" + base, ignored -> {
      AnthropicOkHttpClient.Builder builder = AnthropicOkHttpClient.builder();
      if (useKey) {
        builder.apiKey(key);
      } else {
        builder.authToken(token);
      }
      builder
          .maxRetries(0) // the activity's retry policy owns retries
          .timeout(Duration.ofSeconds(150));
      if (base != null && !base.isBlank()) {
        builder.baseUrl(base);
      }
      return builder.build();
    });
    int thinking = spec.thinkingTokens();
    MessageCreateParams.Builder params = MessageCreateParams.builder()
        .model(spec.model())
        .maxTokens(thinking + 1024L)
        .system(SYSTEM)
        .addUserMessage(user);
    if (thinking > 0) {
      params.enabledThinking(thinking);
    }
    try {
      Message m = client.messages().create(params.build());
      String text = m.content().stream().flatMap(b -> b.text().stream()).map(TextBlock::text)
          .collect(Collectors.joining("\n"));
      return new Answer(text, claudeCost(spec.model(), m));
    } catch (AnthropicServiceException e) {
      throw byStatus(e.statusCode(), "Anthropic API", e.getMessage());
    } catch (AnthropicIoException e) {
      throw ApplicationFailure.newFailure("cannot reach the Anthropic API: " + e.getMessage(), RETRYABLE);
    }
  }

  private static Answer gemini(OverseerSpec spec, Map<String, String> env, String user) {
    String key = firstNonBlank(env.get("GEMINI_API_KEY"), env.get("GOOGLE_API_KEY"));
    if (key == null) {
      throw refused("GEMINI_API_KEY is not set on this worker (environment or the colony's .env)");
    }
    HttpOptions.Builder http = HttpOptions.builder()
        .timeout(150_000)
        .retryOptions(HttpRetryOptions.builder().attempts(1).build());
    String base = firstNonBlank(env.get("GEMINI_BASE_URL"), env.get("GOOGLE_GEMINI_BASE_URL"));
    if (base != null) {
      http.baseUrl(base);
    }
    GenerateContentConfig.Builder config = GenerateContentConfig.builder()
        .systemInstruction(Content.builder().role("system").parts(Part.fromText(SYSTEM)).build())
        .responseMimeType("application/json");
    if (spec.thinkingTokens() > 0) {
      config.thinkingConfig(ThinkingConfig.builder().thinkingBudget(spec.thinkingTokens()).build());
    }
    try (Client client = Client.builder().apiKey(key).httpOptions(http.build()).build()) {
      GenerateContentResponse r = client.models.generateContent(spec.model(), user, config.build());
      return new Answer(r.text(), geminiCost(spec.model(), r));
    } catch (ApiException e) {
      throw byStatus(e.code(), "Gemini API", e.getMessage());
    } catch (GenAiIOException e) {
      throw ApplicationFailure.newFailure("cannot reach the Gemini API: " + e.getMessage(), RETRYABLE);
    }
  }

  /** Input (cache writes at 1.25 times, reads at a tenth of the input price) and output tokens at list price. */
  private static double claudeCost(String model, Message m) {
    try {
      var u = m.usage();
      double input = u.inputTokens() + 1.25 * u.cacheCreationInputTokens().orElse(0L)
          + 0.1 * u.cacheReadInputTokens().orElse(0L);
      return OverseerPrices.costUsd(model, Math.round(input), u.outputTokens());
    } catch (RuntimeException noUsage) {
      return 0; // a gateway that reports no usage: nothing to count
    }
  }

  /** Prompt tokens, and the answer's plus the thinking's (billed as output), at list price. */
  private static double geminiCost(String model, GenerateContentResponse r) {
    return r.usageMetadata().map(u -> OverseerPrices.costUsd(model, u.promptTokenCount().orElse(0),
        u.candidatesTokenCount().orElse(0) + (long) u.thoughtsTokenCount().orElse(0))).orElse(0.0);
  }

  /** Bad key, no access, bad request: retrying cannot help. A rate limit or an outage may pass. */
  static ApplicationFailure byStatus(int status, String api, String message) {
    String text = api + " answered " + status + ": " + clip(message == null ? "" : message, 300);
    if (status == 408 || status == 409 || status == 429 || status >= 500) {
      return ApplicationFailure.newFailure(text, RETRYABLE);
    }
    return refused(text);
  }

  private static ApplicationFailure refused(String message) {
    return ApplicationFailure.newNonRetryableFailure(message, NOT_RETRYABLE);
  }

  private static String firstNonBlank(String... values) {
    for (String v : values) {
      if (v != null && !v.isBlank()) {
        return v;
      }
    }
    return null;
  }

  private static String clip(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max) + "…";
  }
}
