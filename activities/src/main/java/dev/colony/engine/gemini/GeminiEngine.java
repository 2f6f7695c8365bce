package dev.colony.engine.gemini;

import com.google.genai.Client;
import com.google.genai.errors.ApiException;
import com.google.genai.errors.GenAiIOException;
import com.google.genai.types.ClientOptions;
import com.google.genai.types.Content;
import com.google.genai.types.FunctionCall;
import com.google.genai.types.GenerateContentConfig;
import com.google.genai.types.GenerateContentResponse;
import com.google.genai.types.HttpOptions;
import com.google.genai.types.HttpRetryOptions;
import com.google.genai.types.Part;
import com.google.genai.types.Tool;
import dev.colony.engine.Engine;
import dev.colony.engine.ModelPrices;
import dev.colony.engine.SessionCancelledException;
import dev.colony.engine.SessionContext;
import dev.colony.errorpolicy.Outcome;
import dev.colony.session.SessionResult;
import dev.colony.spec.GeminiSpec;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import okhttp3.OkHttpClient;
import okhttp3.Response;

/**
 * {@code engine: gemini}: an agent loop in the worker on the Google Gen AI Java SDK. Each turn
 * sends the conversation with Colony's workspace tools; function calls run (through the ant's
 * tool gate) and their results go back, until the model answers without calling a tool or
 * {@code gemini.max_turns} is reached. The loop runs off the activity thread so the session
 * keeps heartbeating during long tools and human confirmations.
 */
public final class GeminiEngine implements Engine {
  private final Clock clock;

  public GeminiEngine() {
    this(Clock.systemUTC());
  }

  GeminiEngine(Clock clock) {
    this.clock = clock;
  }

  @Override
  public SessionResult run(SessionContext ctx) throws InterruptedException {
    String key = firstNonBlank(ctx.env().get("GEMINI_API_KEY"), ctx.env().get("GOOGLE_API_KEY"));
    if (key == null) {
      return SessionResult.of(Outcome.AUTH, "GEMINI_API_KEY is not set on this worker (environment or the colony's .env)");
    }
    ExecutorService loopThread = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "gemini-loop-" + ctx.spec().name());
      t.setDaemon(true);
      return t;
    });
    long started = clock.millis();
    Loop loop = new Loop(ctx, key, started);
    Future<SessionResult> result = loopThread.submit(loop::run);
    try {
      long deadline = started + ctx.timeout().toMillis();
      while (true) {
        try {
          return result.get(ctx.heartbeatInterval().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException stillRunning) {
          ctx.progress().beat(null);
          if (clock.millis() >= deadline) {
            loop.stop();
            result.cancel(true);
            return loop.partial(Outcome.TRANSIENT, "session timed out after " + ctx.timeout().toSeconds() + "s and was stopped");
          }
          if (ctx.guard().idle()) {
            stopGracefully(loop, result, ctx);
            return loop.partial(Outcome.TRANSIENT, ctx.guard().interrupted());
          }
        } catch (ExecutionException e) {
          return loop.partial(Outcome.TRANSIENT, "gemini loop failed: " + e.getCause());
        }
      }
    } catch (SessionCancelledException e) {
      stopGracefully(loop, result, ctx);
      throw e;
    } catch (InterruptedException e) {
      loop.stop();
      result.cancel(true);
      throw e;
    } finally {
      loopThread.shutdownNow();
    }
  }

  /** The loop stops after its current request or tool; after the grace period it is cut. */
  private static void stopGracefully(Loop loop, Future<SessionResult> result, SessionContext ctx) {
    loop.stop();
    try {
      result.get(ctx.guard().grace().toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException | java.util.concurrent.CancellationException e) {
      // cut below
    }
    result.cancel(true);
  }

  /** The model's price: the ant's {@code gemini.price}, else the list price in {@link ModelPrices}. */
  static ModelPrices.Price price(GeminiSpec g) {
    return g.inputUsdPerMillion() != null && g.outputUsdPerMillion() != null
        ? new ModelPrices.Price(g.inputUsdPerMillion(), g.outputUsdPerMillion()) : ModelPrices.of(g.model());
  }

  private static String firstNonBlank(String... values) {
    for (String v : values) {
      if (v != null && !v.isBlank()) {
        return v;
      }
    }
    return null;
  }

  /** One session's conversation with the model. */
  private final class Loop {
    private final SessionContext ctx;
    private final String apiKey;
    private final long started;
    private final AtomicReference<String> lastErrorBody = new AtomicReference<>();
    private volatile boolean stopped;
    private int turns;
    private long inputTokens;
    private long outputTokens;
    /** What the calls so far cost: their tokens at the model's price (ModelPrices, or gemini.price). */
    private volatile double costUsd;

    Loop(SessionContext ctx, String apiKey, long started) {
      this.ctx = ctx;
      this.apiKey = apiKey;
      this.started = started;
    }

    void stop() {
      stopped = true;
    }

    SessionResult partial(Outcome outcome, String detail) {
      return new SessionResult(outcome, detail, null, turns, costUsd, inputTokens, outputTokens, clock.millis() - started,
          null, ctx.transcript().toString());
    }

    private SessionResult withReset(SessionResult r) {
      return new SessionResult(r.outcome(), r.detail(), r.resetAtEpochMillis(), turns, costUsd, inputTokens, outputTokens,
          clock.millis() - started, null, ctx.transcript().toString());
    }

    SessionResult run() throws IOException {
      GeminiSpec g = ctx.spec().gemini() == null ? GeminiSpec.DEFAULTS : ctx.spec().gemini();
      // Our own OkHttp client, so the raw error body (with RetryInfo) can be read. One per session
      // on purpose: Client.close() shuts down the client's dispatcher and pool, so it cannot be shared.
      OkHttpClient http = new OkHttpClient.Builder()
          .readTimeout(10, TimeUnit.MINUTES)
          .addInterceptor(chain -> {
            Response response = chain.proceed(chain.request());
            if (response.code() >= 400) {
              lastErrorBody.set(response.peekBody(256 * 1024).string());
            }
            return response;
          })
          .build();
      HttpOptions.Builder httpOptions = HttpOptions.builder()
          // One attempt per call: the error policy owns retries and backoff.
          .retryOptions(HttpRetryOptions.builder().attempts(1).build());
      String base = firstNonBlank(ctx.env().get("GEMINI_BASE_URL"), ctx.env().get("GOOGLE_GEMINI_BASE_URL"));
      if (base != null) {
        httpOptions.baseUrl(base);
      }
      GeminiTools tools = new GeminiTools(ctx.workspace(), ctx.gate(), ctx.narrator(), ctx.confinement(), ctx.env());
      GenerateContentConfig config = GenerateContentConfig.builder()
          .tools(Tool.builder().functionDeclarations(GeminiTools.declarations()).build())
          .systemInstruction(Content.builder().role("system").parts(Part.fromText(
              "You work autonomously in the directory that your tools operate on. Use the tools to do the work;"
                  + " answer without calling a tool when you are done.")).build())
          .build();
      List<Content> conversation = new ArrayList<>();
      conversation.add(Content.builder().role("user").parts(Part.fromText(ctx.prompt())).build());
      Files.createDirectories(ctx.transcript().getParent());
      try (Client client = Client.builder().apiKey(apiKey).httpOptions(httpOptions.build())
              .clientOptions(ClientOptions.builder().customHttpClient(http).build()).build();
           Writer transcript = Files.newBufferedWriter(ctx.transcript())) {
        String lastText = "";
        while (!stopped) {
          if (turns >= g.maxTurns()) {
            return partial(Outcome.MAX_TURNS, "reached gemini.max_turns (" + g.maxTurns() + ")");
          }
          GenerateContentResponse response;
          try {
            response = client.models.generateContent(g.model(), conversation, config);
          } catch (ApiException e) {
            String body = lastErrorBody.get();
            return withReset(GeminiErrors.classify(e.code(), body == null ? e.getMessage() : body, clock.millis()));
          } catch (GenAiIOException e) {
            return partial(Outcome.TRANSIENT, "cannot reach the Gemini API: " + e.getMessage());
          }
          turns++;
          ctx.guard().touch();
          response.usageMetadata().ifPresent(u -> {
            long in = u.promptTokenCount().orElse(0);
            // Thinking is billed as output.
            long out = u.candidatesTokenCount().orElse(0) + u.thoughtsTokenCount().orElse(0);
            inputTokens += in;
            outputTokens += out;
            costUsd += price(g).usd(in, out);
            ctx.overseer().spent(costUsd);
          });
          Content reply = response.candidates().flatMap(c -> c.isEmpty() ? java.util.Optional.empty() : c.get(0).content())
              .orElse(Content.builder().role("model").parts(List.of()).build());
          conversation.add(reply);
          transcript.write(reply.toJson());
          transcript.write('\n');
          transcript.flush();
          for (Part p : reply.parts().orElse(List.of())) {
            p.text().ifPresent(t -> {
              ctx.narrator().text(t);
              ctx.overseer().turn(dev.colony.overseer.Turn.text(t));
            });
          }
          String text = reply.text();
          if (text != null && !text.isBlank()) {
            lastText = text;
          }
          List<FunctionCall> calls = response.functionCalls();
          if (calls == null || calls.isEmpty()) {
            return partial(Outcome.SUCCESS, lastText.strip().lines().findFirst().orElse("done"));
          }
          List<Part> results = new ArrayList<>();
          for (FunctionCall call : calls) {
            String name = call.name().orElse("");
            Map<String, Object> args = call.args().orElse(Map.of());
            Map<String, Object> out = ctx.guard().holding(() -> tools.call(name, args));
            results.add(Part.fromFunctionResponse(name, out));
            Object err = out.get("error");
            ctx.overseer().turn(dev.colony.overseer.Turn.tool(name, GeminiTools.describe(name, args),
                err != null ? err.toString() : GeminiTools.summary(out), err != null));
          }
          // The overseer's whispers ride with the tool results: the model reads them at its next turn.
          for (String w : ctx.overseer().take()) {
            results.add(Part.fromText(w));
          }
          Content toolTurn = Content.builder().role("user").parts(results).build();
          conversation.add(toolTurn);
          transcript.write(toolTurn.toJson());
          transcript.write('\n');
        }
        return partial(Outcome.TRANSIENT, "session stopped");
      }
    }
  }
}
