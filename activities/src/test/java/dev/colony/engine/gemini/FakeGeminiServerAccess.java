package dev.colony.engine.gemini;

/** Lets tests in other packages script the fake Gemini API. */
public final class FakeGeminiServerAccess implements AutoCloseable {
  private final FakeGeminiServer server;

  public FakeGeminiServerAccess() throws java.io.IOException {
    server = new FakeGeminiServer();
  }

  public void reply(int status, String body) {
    server.reply(status, body);
  }

  public String baseUrl() {
    return server.baseUrl();
  }

  @Override
  public void close() {
    server.close();
  }
}
