package dev.resyncmeter.agent.start;

import dev.resyncmeter.agent.api.Part;
import dev.resyncmeter.agent.runtime.AgentLog;
import dev.resyncmeter.agent.runtime.AgentMetrics;
import dev.resyncmeter.agent.runtime.IdentityWeakMap;
import dev.resyncmeter.agent.runtime.LateStart;
import dev.resyncmeter.agent.weaving.StartGate;
import dev.resyncmeter.agent.weaving.Weaving;
import dev.resyncmeter.collector.MetricsServer;
import dev.resyncmeter.collector.endpoint.EndpointSecurity;
import dev.resyncmeter.collector.endpoint.SetupException;
import dev.resyncmeter.collector.ResyncMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import net.bytebuddy.dynamic.Nexus;
import net.bytebuddy.dynamic.loading.ClassInjector;

/**
 * The agent's entry: {@code -javaagent} ({@link #premain}) or attach ({@link #agentmain}). It reports
 * its arguments and binds its endpoint, then builds the collector and weaves the instrumentation units
 * on a thread of its own while the host starts (see {@link StartGate}). Whatever goes wrong here costs
 * the host one line on stderr, never its start.
 */
public final class ResyncMeterAgent {

  private static final AtomicBoolean STARTED = new AtomicBoolean();

  /**
   * Set in the JVM the agent runs in, under the agent's own prefix: the attach command reads them to
   * refuse a second agent and to say where this one serves.
   */
  public static final String VERSION_PROPERTY = "dev.resyncmeter.agent.version";
  public static final String ENDPOINT_PROPERTY = "dev.resyncmeter.agent.endpoint";
  /** How {@link #ENDPOINT_PROPERTY} starts when the agent serves; anything else says why it does not. */
  public static final String SERVING = "serving ";
  /** How {@link #ENDPOINT_PROPERTY} starts when an attached agent stayed out, followed by why. */
  public static final String NOT_STARTED = "not started: ";

  private ResyncMeterAgent() {}

  public static void premain(String args, Instrumentation instrumentation) {
    // Beside another Java agent, everything is done here, before that agent's premain, as always: its
    // transformer may take its own class loader's lock while it loads a class, and a start thread
    // loading our classes at the same time can deadlock with it (OpenTelemetry's does).
    start(args, instrumentation, !OtherJavaAgents.present(), false);
  }

  public static void agentmain(String args, Instrumentation instrumentation) {
    // Attached to a running host: its classes are loaded already, the weaving retransforms them now.
    start(args, instrumentation, false, true);
  }

  private static void start(String args, Instrumentation instrumentation, boolean inBackground, boolean attached) {
    StartGate gate = null;
    boolean handedOver = false;
    try {
      if (!STARTED.compareAndSet(false, true)) {
        AgentLog.warn("already running in this JVM; the second start is ignored");
        return;
      }
      // a failed attach before this one may have left its reason: the attach command reads this start's
      System.clearProperty(ENDPOINT_PROPERTY);
      AgentArguments arguments = AgentArguments.parse(args, System.getenv());
      for (String problem : arguments.problems()) {
        AgentLog.warn(problem);
      }
      List<Part> woven = Parts.without(arguments.disabled());
      MetricsServer server = null;
      String noEndpoint = null;
      try {
        server = bind(arguments);
      } catch (Exception e) {
        noEndpoint = "cannot serve metrics on " + arguments.host() + ":" + arguments.port() + ": " + whyNotBound(e);
      }
      if (noEndpoint != null && attached) {
        // Attached, an agent without its endpoint would count for nobody and refuse a corrected attach:
        // it stays out, with nothing woven, and says why where the attach command reads it.
        System.setProperty(ENDPOINT_PROPERTY, NOT_STARTED + noEndpoint);
        AgentLog.warn("{}; not started, the application runs as it did", noEndpoint);
        STARTED.set(false);
        return;
      }
      if (noEndpoint != null) {
        AgentLog.warn("{}; counting goes on without an endpoint", noEndpoint);
      }
      if (attached) {
        LateStart.attachedNow();
      }
      System.setProperty(VERSION_PROPERTY, version());
      disableUnsafeProbes();
      for (Part part : Parts.ALL) {
        if (!woven.contains(part)) {
          // before anything is woven: its bridges never count, and what other parts learn from it is lost
          part.unitSwitch().disable();
        }
      }
      gate = new StartGate(Parts.wovenByName(woven));
      instrumentation.addTransformer(gate, true);
      if (inBackground) {
        Thread starter = new Thread(null, new Start(gate, instrumentation, server, woven), "resync-meter-start", 0, false);
        starter.setDaemon(true);
        starter.setContextClassLoader(null);
        gate.startedBy(starter);
        starter.start();
      } else {
        gate.startedBy(Thread.currentThread());
        weave(gate, instrumentation, server, true, attached, woven);
      }
      handedOver = true;
      String endpoint = server == null ? "no endpoint" : server.scheme() + "://" + hostForUrl(arguments.host()) + ":" + server.port() + "/metrics";
      System.setProperty(ENDPOINT_PROPERTY, server == null ? endpoint + ": " + noEndpoint : SERVING + endpoint);
      String serving = SERVING + endpoint;
      AgentLog.info("resync-meter {} {}; {}", version(), serving, StartLine.parts(woven, ClassLoader.getSystemClassLoader()));
      if (attached) {
        // Not a fault: what was queued or began before has no start the agent could have seen.
        AgentLog.info(StartLine.ATTACHED);
      }
    } catch (Throwable t) {
      if (gate != null && !handedOver) {
        // the weaving will not come: nothing may wait for it
        gate.open();
      }
      failedToStart(t);
    }
  }

  /**
   * On the start thread: the collector, then the weaving of {@code parts}, then the endpoint's answers.
   * The gate opens when the weaving is installed, or could not be: no class loading ever waits for a
   * failed start. Before the gate opens, no advice can run; the endpoint's first answer may wait for
   * the rest.
   */
  private static void weave(
      StartGate gate, Instrumentation instrumentation, MetricsServer server, boolean retransformLoaded, boolean attached, List<Part> parts) {
    ResyncMetrics metrics = null;
    Weaving weaving = null;
    try {
      metrics = new ResyncMetrics(AgentMetrics.observability());
      // Before any class is woven: advice that runs finds the collector.
      AgentMetrics.install(metrics);
      IdentityWeakMap.startCleaning();
      weaving = new Weaving(Parts.ALL, parts, version(), attached);
      gate.whenLate(weaving.unitSwitches());
      weaving.install(gate.delegatingTo(instrumentation), retransformLoaded);
      weaving.weaveEarlyHandlers(instrumentation, gate.activate());
    } catch (Throwable t) {
      failedToStart(t);
    } finally {
      gate.open();
    }
    if (metrics == null || weaving == null) {
      if (server != null) {
        server.close();
      }
    } else {
      try {
        weaving.publish(metrics);
        if (server != null) {
          server.serve(metrics);
        }
      } catch (Throwable t) {
        failedToStart(t);
      }
    }
  }

  private static void failedToStart(Throwable t) {
    try {
      // one line, naming where: the report a user can send
      StackTraceElement[] where = t.getStackTrace();
      System.err.println("[resync-meter] failed to start, the application runs without it: " + t + (where.length == 0 ? "" : " (at " + where[0] + ")"));
    } catch (Throwable ignored) {
      // nothing more to do without harming the host
    }
  }

  /**
   * Advice needs neither Nexus (no type initializers to run) nor class injection. Left enabled, our
   * ByteBuddy probes both through sun.misc.Unsafe, and Java 24+ prints WARNING lines naming the agent
   * on the host's stderr. Both keys are relocated with ByteBuddy: the host's own ByteBuddy never reads
   * them. Set here, before the host's main, so that the host sees the same system properties from its
   * start on (the constants are compiled in: this loads no class of ByteBuddy's).
   */
  private static void disableUnsafeProbes() {
    System.setProperty(Nexus.PROPERTY, "true");
    if (System.getProperty(ClassInjector.UsingUnsafe.SAFE_PROPERTY) == null) {
      System.setProperty(ClassInjector.UsingUnsafe.SAFE_PROPERTY, "true");
    }
  }

  /**
   * Binds the endpoint's address now, so the start line tells the port or the one WARN line why there
   * is none; it answers once the collector is built. A shutdown hook closes it: a thread waiting in
   * {@code accept} would otherwise hold up every exit of the JVM by 300 ms (HotSpot waits that long
   * for threads in native code).
   */
  private static MetricsServer bind(AgentArguments arguments) throws IOException, SetupException {
    MetricsServer server = MetricsServer.bind(arguments.host(), arguments.port(), security(arguments.endpoint()));
    try {
      Thread closer = new Thread(null, new CloseOnExit(server), "resync-meter-shutdown", 0, false);
      closer.setContextClassLoader(null);
      Runtime.getRuntime().addShutdownHook(closer);
    } catch (RuntimeException shuttingDown) {
      // the JVM is exiting already: nothing to hold up
    }
    return server;
  }

  /**
   * What the endpoint asks of clients. Asked for TLS or basic authentication and unable to set it up,
   * the agent serves nothing rather than serve without it (fail closed).
   */
  private static EndpointSecurity security(AgentArguments.EndpointSettings settings) throws SetupException {
    if (!settings.any()) {
      return EndpointSecurity.NONE; // the common case loads none of the TLS classes
    }
    return EndpointSecurity.load(
        path(settings.tlsCertificate()),
        path(settings.tlsKey()),
        path(settings.tlsClientCa()),
        settings.basicAuthUser(),
        path(settings.basicAuthPasswordFile()),
        new RotationWarnings());
  }

  private static Path path(String value) {
    return value == null ? null : Path.of(value);
  }

  /** A rotated file that cannot be used: one WARN line, written by the log thread. */
  private static final class RotationWarnings implements Consumer<String> {
    @Override
    public void accept(String warning) {
      AgentLog.warn("{}", warning);
    }
  }

  // Classes rather than lambdas for the two threads: a first lambda costs the host's start the
  // lambda machinery's own.
  private static final class Start implements Runnable {
    private final StartGate gate;
    private final Instrumentation instrumentation;
    private final MetricsServer server;
    private final List<Part> parts;

    Start(StartGate gate, Instrumentation instrumentation, MetricsServer server, List<Part> parts) {
      this.gate = gate;
      this.instrumentation = instrumentation;
      this.server = server;
      this.parts = parts;
    }

    @Override
    public void run() {
      weave(gate, instrumentation, server, false, false, parts);
    }
  }

  private static final class CloseOnExit implements Runnable {
    private final MetricsServer server;

    CloseOnExit(MetricsServer server) {
      this.server = server;
    }

    @Override
    public void run() {
      server.close();
    }
  }

  /** Why the endpoint could not be bound, in words: the exception's class says nothing to a user. */
  static String whyNotBound(Exception e) {
    if (e instanceof SetupException) {
      return e.getMessage();
    }
    Throwable cause = e.getCause() != null ? e.getCause() : e;
    String message = cause.getMessage() == null ? "" : cause.getMessage();
    if (message.contains("already in use")) {
      return "the port is in use";
    }
    if (message.contains("assign requested address")) {
      return "the host is not an address of this machine";
    }
    if (message.contains("Permission denied")) {
      return "binding that port is not permitted";
    }
    if (cause instanceof UnknownHostException || message.contains("Unresolved")) {
      return "the host name is not known";
    }
    return message.isEmpty() ? "the address cannot be bound" : message;
  }

  private static String hostForUrl(String host) {
    return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
  }

  /** The agent's version, as its build stamped it; {@code unknown} without the stamp. */
  public static String version() {
    try (InputStream in = ResyncMeterAgent.class.getResourceAsStream("/dev/resyncmeter/agent/version.txt")) {
      return in == null ? "unknown" : new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
    } catch (Exception e) {
      return "unknown";
    }
  }
}
