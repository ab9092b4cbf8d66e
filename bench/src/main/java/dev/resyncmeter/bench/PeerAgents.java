package dev.resyncmeter.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The JVM configurations the benchmark compares: no agent, resync-meter, and each peer agent as
 * users run it, each serving its metrics on a loopback port of its own.
 */
public final class PeerAgents {

  /** One configuration; {@code key} names it in the results. */
  public enum Config {
    NONE("none", "no agent"),
    RESYNC_METER("resync-meter", "resync-meter"),
    OPENTELEMETRY("opentelemetry", "OpenTelemetry javaagent 2.33.1"),
    JMX_EXPORTER("jmx-exporter", "jmx_prometheus_javaagent 1.0.1");

    public final String key;
    public final String title;

    Config(String key, String title) {
      this.key = key;
      this.title = title;
    }

    public boolean isPeer() {
      return this == OPENTELEMETRY || this == JMX_EXPORTER;
    }
  }

  /**
   * The JVM options of one start; {@code peerMetricsUrl} is the peer's own endpoint (null for none and
   * resync-meter, whose port 0 is announced on stderr).
   */
  public record Setup(Config config, List<String> options, String peerMetricsUrl) {}

  static final String OPENTELEMETRY_JAR = "opentelemetry-javaagent-2.33.1.jar";
  static final String JMX_EXPORTER_JAR = "jmx_prometheus_javaagent-1.0.1.jar";
  /** The smallest JMX exporter configuration: every MBean attribute, default naming. */
  static final String JMX_CONFIG = "rules:\n  - pattern: \".*\"\n";

  private final Path agentJar;
  private final Path peerDir;
  private final Path jmxConfig;

  public PeerAgents(Path agentJar, Path peerDir, Path workDir) throws IOException {
    this.agentJar = existing(agentJar);
    this.peerDir = peerDir;
    existing(peerDir.resolve(OPENTELEMETRY_JAR));
    existing(peerDir.resolve(JMX_EXPORTER_JAR));
    Files.createDirectories(workDir);
    this.jmxConfig = Files.writeString(workDir.resolve("jmx-exporter.yaml"), JMX_CONFIG);
    // Deleted in reverse order of registration: the file, then its folder.
    workDir.toFile().deleteOnExit();
    jmxConfig.toFile().deleteOnExit();
  }

  public Path agentJar() {
    return agentJar;
  }

  /** The {@code -javaagent} option of resync-meter on an ephemeral loopback port. */
  public String resyncMeterOption() {
    return "-javaagent:" + agentJar + "=host=127.0.0.1,port=0";
  }

  /** Options for one JVM start; peers get a fresh free port each time. */
  public Setup setup(Config config) throws IOException {
    List<String> options = new ArrayList<>();
    String url = null;
    switch (config) {
      case NONE -> {}
      case RESYNC_METER -> options.add(resyncMeterOption());
      case OPENTELEMETRY -> {
        int port = freePort();
        options.add("-javaagent:" + peerDir.resolve(OPENTELEMETRY_JAR));
        options.add("-Dotel.traces.exporter=none");
        options.add("-Dotel.logs.exporter=none");
        options.add("-Dotel.metrics.exporter=prometheus");
        options.add("-Dotel.exporter.prometheus.host=127.0.0.1");
        options.add("-Dotel.exporter.prometheus.port=" + port);
        url = "http://127.0.0.1:" + port + "/metrics";
      }
      case JMX_EXPORTER -> {
        int port = freePort();
        options.add("-javaagent:" + peerDir.resolve(JMX_EXPORTER_JAR) + "=127.0.0.1:" + port + ":" + jmxConfig);
        url = "http://127.0.0.1:" + port + "/metrics";
      }
    }
    return new Setup(config, List.copyOf(options), url);
  }

  /** Every configuration, starting at a different one each repetition: no configuration always runs first. */
  static List<Config> rotated(int repetition) {
    Config[] all = Config.values();
    List<Config> order = new ArrayList<>();
    for (int i = 0; i < all.length; i++) {
      order.add(all[(i + repetition) % all.length]);
    }
    return order;
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static Path existing(Path path) {
    Path absolute = path.toAbsolutePath().normalize();
    if (!Files.isRegularFile(absolute)) {
      throw new IllegalArgumentException(absolute + " is missing (the bench module's package phase copies the peer agents and the agent jar into its target; --agent names another agent jar)");
    }
    return absolute;
  }
}
