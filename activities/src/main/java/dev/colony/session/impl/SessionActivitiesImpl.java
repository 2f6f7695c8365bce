package dev.colony.session.impl;

import dev.colony.chat.impl.ChatSink;
import dev.colony.config.Environment;
import dev.colony.secrets.Secrets;
import dev.colony.config.SpecReferences;
import dev.colony.engine.Engine;
import dev.colony.engine.Narrator;
import dev.colony.engine.Progress;
import dev.colony.engine.PromptBuilder;
import dev.colony.engine.SessionCancelledException;
import dev.colony.engine.SessionContext;
import dev.colony.engine.SessionGuard;
import dev.colony.engine.Transcripts;
import dev.colony.engine.claude.ClaudeEngine;
import dev.colony.engine.command.CommandEngine;
import dev.colony.errorpolicy.Outcome;
import dev.colony.session.SessionActivities;
import dev.colony.session.SessionRequest;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.task.TaskWork;
import dev.colony.spec.EngineKind;
import dev.colony.spec.RecoveryPolicy;
import dev.colony.toolgate.ToolGate;
import dev.colony.toolgate.WorkflowConfirmer;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.client.ActivityCompletionException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import dev.colony.session.SessionLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs one session with the ant's engine, heartbeating, within the ant's session bound. */
public final class SessionActivitiesImpl implements SessionActivities {
  private static final Logger log = LoggerFactory.getLogger(SessionActivitiesImpl.class);

  private final Map<EngineKind, Engine> engines;
  private final ChatSink chat;
  private final PrintStream console;
  private final Secrets secrets;
  private final SessionEnvironment sessionEnvironment;
  private final Workspaces workspaces;
  /** The session's colony.agent span is started with it (the API's no-op one: tracing off). */
  private final io.opentelemetry.api.trace.Tracer tracer;

  /** Prepares an ant's workspace on this host (the spec's references already resolved). */
  @FunctionalInterface
  public interface Workspaces {
    Path prepare(AntSpec resolved) throws java.io.IOException, InterruptedException;
  }

  /**
   * The agent is announced (spawning becomes running) once it has run this long: a session that
   * ends sooner costs no signal and no workflow task, and status never shows a stale "running".
   */
  static final Duration ANNOUNCE_AFTER = Duration.ofSeconds(1);
  private static final java.util.concurrent.ScheduledExecutorService ANNOUNCER =
      java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "colony-session-announcer");
        t.setDaemon(true);
        return t;
      });
  /** How often a workspace that cannot be prepared is tried within one session. */
  static final int WORKSPACE_ATTEMPTS = 3;
  /** The wait before the second attempt (doubled before the third); tests shorten it. */
  static volatile long workspaceRetryMillis = 2000;

  /**
   * @param chat where narration and tool logs are posted (the ant's channel)
   * @param console the worker's terminal, for {@code lm_output: console}
   */
  public SessionActivitiesImpl(Map<EngineKind, Engine> engines, ChatSink chat, PrintStream console) {
    this(engines, chat, console, Secrets.process());
  }

  public SessionActivitiesImpl(Map<EngineKind, Engine> engines, ChatSink chat, PrintStream console,
      Secrets secrets) {
    this(engines, chat, console, secrets, SessionEnvironment.NONE);
  }

  /** @param sessionEnvironment what every session's agent is told about its colony and Temporal */
  public SessionActivitiesImpl(Map<EngineKind, Engine> engines, ChatSink chat, PrintStream console,
      Secrets secrets, SessionEnvironment sessionEnvironment) {
    this(engines, chat, console, secrets, sessionEnvironment, null);
  }

  /** @param workspaces where this host keeps worktrees (null: the spec's workspace root) */
  public SessionActivitiesImpl(Map<EngineKind, Engine> engines, ChatSink chat, PrintStream console,
      Secrets secrets, SessionEnvironment sessionEnvironment, Workspaces workspaces) {
    this(engines, chat, console, secrets, sessionEnvironment, workspaces,
        io.opentelemetry.api.OpenTelemetry.noop().getTracer(SessionTrace.SCOPE));
  }

  private SessionActivitiesImpl(Map<EngineKind, Engine> engines, ChatSink chat, PrintStream console,
      Secrets secrets, SessionEnvironment sessionEnvironment, Workspaces workspaces,
      io.opentelemetry.api.trace.Tracer tracer) {
    this.tracer = tracer;
    this.engines = new EnumMap<>(engines);
    this.chat = chat;
    this.console = console;
    this.secrets = secrets;
    this.sessionEnvironment = sessionEnvironment;
    this.workspaces = workspaces != null ? workspaces
        : new dev.colony.workspace.impl.WorkspaceActivitiesImpl(secrets)::prepare;
  }

  /** The same engines and sinks, preparing workspaces with {@code workspaces}. */
  public SessionActivitiesImpl withWorkspaces(Workspaces workspaces) {
    return new SessionActivitiesImpl(engines, chat, console, secrets, sessionEnvironment, workspaces, tracer);
  }

  /**
   * The same, starting each session's {@code colony.agent} span with {@code tracer} (the worker's,
   * when traces are on: docs/observability.md#traces).
   */
  public SessionActivitiesImpl withTracer(io.opentelemetry.api.trace.Tracer tracer) {
    return new SessionActivitiesImpl(engines, chat, console, secrets, sessionEnvironment, workspaces, tracer);
  }

  /** The engines this build provides. */
  public static SessionActivitiesImpl withDefaultEngines(ChatSink chat, PrintStream console) {
    return withDefaultEngines(chat, console, SessionEnvironment.NONE);
  }

  public static SessionActivitiesImpl withDefaultEngines(ChatSink chat, PrintStream console,
      SessionEnvironment sessionEnvironment) {
    return new SessionActivitiesImpl(Map.of(
        EngineKind.COMMAND, new CommandEngine(),
        EngineKind.CLAUDE, new ClaudeEngine(),
        EngineKind.GEMINI, new dev.colony.engine.gemini.GeminiEngine()), chat, console, Secrets.process(),
        sessionEnvironment);
  }

  @Override
  public SessionResult runSession(SessionRequest request) {
    ActivityExecutionContext activity = Activity.getExecutionContext();
    // Until the engine beats: the workspace, the walls and git before the session take their
    // time on a loaded host, and a session whose setup outlived its heartbeat timeout would be
    // started again while the first attempt still ran.
    SetupBeat beat = SetupBeat.start(activity, request.spec().heartbeatTimeoutSeconds());
    try {
      return runSession(request, activity, beat);
    } finally {
      beat.stop();
    }
  }

  private SessionResult runSession(SessionRequest request, ActivityExecutionContext activity, SetupBeat beat) {
    Map<String, String> env = Environment.forColony(Path.of(request.spec().colonyDir()));
    secrets.registerSecretLookingNames(env);
    // The spec in history carries ${VAR} references only; the values exist here, in memory.
    AntSpec spec = SpecReferences.resolve(request.spec(), env, secrets);
    Engine engine = engines.get(spec.engine());
    if (engine == null) {
      return SessionResult.of(Outcome.PERMANENT, "engine \"" + spec.engine().configName()
          + "\" is not available on this worker (available: " + available() + ")");
    }
    String workspace = request.workspace();
    if (workspace == null) {
      // Since the lean cycle the workspace is prepared here, on the ant's host, with the session.
      try {
        workspace = prepareWorkspace(spec, activity, beat.carried()).toString();
      } catch (java.io.IOException e) {
        return SessionResult.of(Outcome.TRANSIENT, "workspace setup failed: " + secrets.redact(e.getMessage()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw Activity.wrap(e);
      }
    }
    String prompt = PromptBuilder.build(spec, request.session(), request.messages(), request.issue(),
        request.whispers(), request.task());
    long heartbeatTimeout = Math.max(2, spec.heartbeatTimeoutSeconds());
    // Heartbeats are throttled to 0.8 x the timeout; beating at a quarter keeps us well inside.
    Duration interval = Duration.ofMillis(Math.max(500, heartbeatTimeout * 1000 / 4));
    String keyPrefix = activity.getInfo().getWorkflowId() + "/s" + request.session() + "/a"
        + activity.getInfo().getAttempt();
    SessionGuard guard = SessionGuard.of(spec);
    WorkflowConfirmer confirmer = new WorkflowConfirmer(activity);
    String at = SessionLog.prefix(activity.getInfo().getRunId(), request.session());
    // The agent's span, under the activity's: its W3C context goes into the agent's environment.
    SessionTrace trace = SessionTrace.start(tracer, spec, request.session(), activity.getInfo().getRunId(),
        activity.getInfo().getAttempt(), secrets::redact);
    Map<String, String> sessionVars = sessionEnvironment.forSession(spec, request.session(), request.task(),
        trace.environment());
    env.putAll(sessionVars);
    // Every ant's turns reach its workflow (the console shows the running session live); only an
    // ant with an overseer waits for verdicts (spec.overseer() null: batches by time, no answer).
    dev.colony.engine.OverseerFeed overseer = new TurnReporter(updates(activity), request.session(),
        activity.getInfo().getAttempt(), spec.overseer(),
        guard, secrets::redact,
        "turns/" + activity.getInfo().getRunId() + "/s" + request.session() + "/a" + activity.getInfo().getAttempt(),
        System::currentTimeMillis).loggingAs(at);
    Path transcript = Transcripts.forSession(spec, request.session());
    try {
      Transcripts.prepare(transcript);
    } catch (java.io.IOException e) {
      trace.ended(Outcome.TRANSIENT.name().toLowerCase(java.util.Locale.ROOT));
      trace.close();
      return SessionResult.of(Outcome.TRANSIENT, "cannot create the transcript " + transcript + ": " + e.getMessage());
    }
    // The session's walls: what it reads besides its workspace is its own transcript directory
    // (its prompt and whisper files) and the files its variables name.
    List<Path> readOnly = new java.util.ArrayList<>(List.of(transcript.toAbsolutePath().getParent()));
    for (String file : List.of("COLONY_TASK_FILE", "COLONY_PEERS_FILE")) {
      if (sessionVars.get(file) != null) {
        readOnly.add(Path.of(sessionVars.get(file)).toAbsolutePath());
      }
    }
    dev.colony.sandbox.SessionWalls walls = dev.colony.sandbox.SessionWalls.of(spec, Path.of(workspace).toAbsolutePath(),
        env, sessionVars, readOnly, spec.colony() + "-" + spec.name() + "-s" + request.session() + "-a"
            + activity.getInfo().getAttempt(), () -> {
              // The session's channel to its colony speaks for this ant and this session only.
              var who = new dev.colony.sandbox.channel.ChannelRules.Identity(spec.colony(), spec.name(), request.session());
              return dev.colony.sandbox.channel.ColonyChannel.open(who,
                  new dev.colony.sandbox.channel.TemporalChannelColony(activity.getWorkflowClient(), who));
            });
    var ended = new java.util.concurrent.atomic.AtomicBoolean();
    try {
      if (walls.refusal() != null) {
        // Fail closed: without its walls the session does not run. A human fixes the machine (or
        // sets sandbox: off on purpose) and resumes the ant.
        log.warn("{}{}: session {} not started: {}", at, spec.name(), request.session(), walls.refusal());
        trace.ended(Outcome.SANDBOX.name().toLowerCase(java.util.Locale.ROOT));
        return SessionResult.of(Outcome.SANDBOX, walls.refusal());
      }
      if (spec.workspace() != null && spec.workspace().repo() != null
          && !spec.workspace().repo().contains("://") && !spec.workspace().repo().startsWith("git@")) {
        // A URL repository's ant got the remote's branches when its workspace was prepared.
        dev.colony.sandbox.GitWalls.refreshOrigin(walls.confinement(), Path.of(workspace).toAbsolutePath());
      }
      // With a task: where its work begins (kept by the ant from its first session), else HEAD now.
      // A rework's session: its work is read from HEAD now, for the head it leaves (what a review
      // approves). Read in the session's walls: the repository is the ant's.
      String taskBase = request.task() == null
          ? (request.reworkItem() == null ? null : TaskWorkReader.head(walls.confinement(), Path.of(workspace)))
          : request.task().baseCommit() != null ? request.task().baseCommit()
          : TaskWorkReader.head(walls.confinement(), Path.of(workspace));
      SessionContext ctx = new SessionContext(spec, request.session(), prompt,
          Path.of(workspace), env, transcript,
          Duration.ofSeconds(spec.sessionTimeoutSeconds()), interval, new HeartbeatProgress(activity, spec, request.resumeConversation()),
          // Waiting for a human's answer is not silence: the watchdog is held meanwhile.
          new ToolGate(spec, request.session(), r -> guard.holding(() -> confirmer.confirm(r)), secrets),
          new Narrator(spec, chat, console, keyPrefix), guard, overseer, walls.confinement());
      log.info("{}{}: session {} starting (attempt {}, {})", at, spec.name(), request.session(),
          activity.getInfo().getAttempt(), walls.confinement().describe());
      announceLater(activity, request.session(), ended, ANNOUNCE_AFTER.toMillis());
      beat.stop(); // the engine beats from here
      SessionResult raw = engine.run(ctx);
      // The result goes into history: keep secret values an agent may have echoed out of it.
      SessionResult result = new SessionResult(raw.outcome(), secrets.redact(raw.detail()),
          raw.resetAtEpochMillis(), raw.turns(), raw.costUsd(), raw.inputTokens(), raw.outputTokens(),
          raw.durationMillis(), raw.sessionId(), raw.transcript());
      if (request.task() != null || request.reworkItem() != null) { // a null base: no commit yet (the agent made it)
        result = result.withWork(redacted(TaskWorkReader.since(Path.of(workspace), taskBase, walls.confinement())));
      }
      log.info("{}{}: session {} ended: {} {}", at, spec.name(), request.session(), result.outcome(),
          dev.colony.text.Printable.of(result.detail()));
      trace.ended(result);
      return result;
    } catch (InterruptedException e) {
      trace.ended("interrupted");
      Thread.currentThread().interrupt();
      throw Activity.wrap(e);
    } catch (SessionCancelledException e) {
      log.info("{}{}: session {} cancelled", at, spec.name(), request.session());
      trace.ended("cancelled");
      throw e.getCause() instanceof RuntimeException r ? r : e;
    } catch (RuntimeException | Error e) {
      trace.ended("failed");
      throw e;
    } finally {
      ended.set(true);
      overseer.close();
      walls.close();
      trace.close();
    }
  }

  /** Commit subjects go into history: secret values an agent put in one are masked. */
  private TaskWork redacted(TaskWork w) {
    if (w == null) {
      return null;
    }
    return new TaskWork(w.branch(), w.base(), w.head(), w.commits().stream()
        .map(c -> new TaskWork.Commit(c.sha(), secrets.redact(c.subject()))).toList(), w.filesChanged(),
        w.linesAdded(), w.linesRemoved(), w.files().stream().map(secrets::redact).toList());
  }

  /** Prepares the workspace, trying again twice (2 s, 4 s) before the session counts as failed. */
  private Path prepareWorkspace(AntSpec spec, ActivityExecutionContext activity, String carried)
      throws java.io.IOException, InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        return workspaces.prepare(spec);
      } catch (java.io.IOException | RuntimeException e) {
        if (attempt >= WORKSPACE_ATTEMPTS) {
          throw e instanceof java.io.IOException io ? io : new java.io.IOException(e.getMessage(), e);
        }
        log.warn("{}: workspace setup failed (attempt {}): {}", spec.name(), attempt, secrets.redact(String.valueOf(e.getMessage())));
        waitAlive(activity, workspaceRetryMillis * attempt, carried);
      }
    }
  }

  /**
   * Waits {@code millis} inside the session activity, heartbeating at least twice per heartbeat
   * timeout: a wait longer than the timeout made Temporal count the live session as dead and run
   * it again on another worker (two attempts on one worktree). A cancelled session stops at the
   * next heartbeat.
   */
  static void waitAlive(ActivityExecutionContext activity, long millis, String details) throws InterruptedException {
    java.time.Duration timeout = activity.getInfo().getHeartbeatTimeout();
    long slice = timeout == null || timeout.isZero() ? millis : Math.max(10, timeout.toMillis() / 2);
    for (long left = millis; left > 0; left -= slice) {
      activity.heartbeat(details);
      Thread.sleep(Math.min(slice, left));
    }
    activity.heartbeat(details);
  }

  /** Turn reports go to the ant's workflow as {@code reportTurns} updates, one id per batch. */
  private static TurnReporter.Channel updates(ActivityExecutionContext activity) {
    io.temporal.client.WorkflowStub ant = activity.getWorkflowClient()
        .newUntypedWorkflowStub(activity.getInfo().getWorkflowId());
    return (report, id, waitForVerdict) -> {
      var options = io.temporal.client.UpdateOptions.newBuilder(dev.colony.overseer.TurnReply.class)
          .setUpdateName("reportTurns")
          .setUpdateId(id)
          .setWaitForStage(waitForVerdict ? io.temporal.client.WorkflowUpdateStage.COMPLETED
              : io.temporal.client.WorkflowUpdateStage.ACCEPTED)
          .build();
      try {
        var handle = ant.startUpdate(options, report);
        return waitForVerdict ? handle.getResult() : null;
      } catch (io.temporal.client.WorkflowUpdateException refused) {
        log.debug("turn report refused: {}", refused.getCause() == null ? refused : refused.getCause().getMessage());
        return null;
      }
    };
  }

  /**
   * Tells the ant its agent runs (spawning becomes running), {@code delayMillis} from now unless
   * the session has ended by then. A signal that cannot be delivered (the server restarting, say)
   * is tried again every 2 s while the session lasts, so status never stays at "spawning".
   */
  private static void announceLater(ActivityExecutionContext activity, int session,
      java.util.concurrent.atomic.AtomicBoolean ended, long delayMillis) {
    ANNOUNCER.schedule(() -> Thread.ofVirtual().start(() -> {
      if (ended.get()) {
        return;
      }
      try {
        activity.getWorkflowClient().newUntypedWorkflowStub(activity.getInfo().getWorkflowId())
            .signal("sessionStarted", session);
      } catch (RuntimeException e) {
        log.debug("sessionStarted signal not sent, trying again: {}", e.toString());
        announceLater(activity, session, ended, 2000);
      }
    }), delayMillis, java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  private String available() {
    return String.join(", ", engines.keySet().stream().map(EngineKind::configName).toList());
  }

  /**
   * Heartbeats while a session is set up, with the details a previous attempt left (the
   * conversation to resume), at a quarter of the heartbeat timeout.
   */
  private static final class SetupBeat {
    /** Past this the setup is stuck (every step has its own deadline): the beats stop, and Temporal sees it. */
    private static final long MAX_SETUP_MILLIS = java.time.Duration.ofMinutes(30).toMillis();
    private final String carried;
    private final java.util.concurrent.locks.ReentrantLock beating = new java.util.concurrent.locks.ReentrantLock();
    private volatile boolean stopped;
    private java.util.concurrent.ScheduledFuture<?> task;

    private SetupBeat(String carried) {
      this.carried = carried;
    }

    static SetupBeat start(ActivityExecutionContext activity, long heartbeatTimeoutSeconds) {
      SetupBeat b = new SetupBeat(activity.getInfo().getAttempt() > 1
          ? activity.getHeartbeatDetails(String.class).orElse(null) : null);
      java.time.Duration given = activity.getInfo().getHeartbeatTimeout();
      long timeout = given != null && !given.isZero() ? given.toMillis() : Math.max(2, heartbeatTimeoutSeconds) * 1000;
      long every = Math.max(100, timeout / 4);
      // The first beat only once the setup has taken half the timeout: Temporal's client sends the
      // first heartbeat at once and holds later ones for most of the timeout, so a setup beat sent
      // first would hold back the engine's first beat (the conversation a retry resumes) for
      // seconds, and a worker killed then would lose it. A quick setup sends none.
      long first = timeout / 2;
      long until = System.currentTimeMillis() + MAX_SETUP_MILLIS;
      java.util.concurrent.atomic.AtomicBoolean busy = new java.util.concurrent.atomic.AtomicBoolean();
      b.task = ANNOUNCER.scheduleAtFixedRate(() -> {
        if (b.stopped || System.currentTimeMillis() > until || !busy.compareAndSet(false, true)) {
          return; // stopped, stuck, or the last beat still waits on the server
        }
        Thread.ofVirtual().start(() -> {
          b.beating.lock();
          try {
            if (!b.stopped) {
              activity.heartbeat(b.carried);
            }
          } catch (RuntimeException e) {
            // cancelled or timed out: the setup finds out at its next step, the engine at its first beat
          } finally {
            b.beating.unlock();
            busy.set(false);
          }
        });
      }, first, every, java.util.concurrent.TimeUnit.MILLISECONDS);
      return b;
    }

    /** What a previous attempt left in its heartbeats (the conversation to resume), or null. */
    String carried() {
      return carried;
    }

    /** Stops the beats; a beat under way ends first (it must not land after the engine's own). */
    void stop() {
      stopped = true;
      task.cancel(false);
      beating.lock();
      beating.unlock();
    }
  }

  private static final class HeartbeatProgress implements Progress {
    private final ActivityExecutionContext activity;
    private final String previous;

    /** @param resumeConversation what a supervisor's restart asked to resume, or null */
    HeartbeatProgress(ActivityExecutionContext activity, AntSpec spec, String resumeConversation) {
      this.activity = activity;
      Optional<String> details = activity.getInfo().getAttempt() > 1
          ? activity.getHeartbeatDetails(String.class) : Optional.empty();
      this.previous = spec.recovery() == RecoveryPolicy.RESUME ? details.orElse(resumeConversation) : null;
    }

    @Override
    public void beat(String conversationId) {
      try {
        activity.heartbeat(conversationId);
      } catch (ActivityCompletionException e) {
        throw new SessionCancelledException(e);
      }
    }

    @Override
    public String previousConversationId() {
      return previous;
    }
  }
}
