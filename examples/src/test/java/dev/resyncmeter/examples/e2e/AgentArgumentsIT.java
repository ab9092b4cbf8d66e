package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * Bad agent arguments cost the host one clear line on stderr, never its start or its exit code. The
 * host here is the examples jar's {@code exit 7}: it prints "host ran" and exits with 7.
 */
class AgentArgumentsIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @ParameterizedTest(name = "[{0}] warns about {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "port=abc                | bad value for agent argument port 'abc'",
        "port=70000              | bad value for agent argument port '70000'",
        "port=-1                 | bad value for agent argument port '-1'",
        "port=                   | bad value for agent argument port ''",
        "bogus=1                 | unknown agent argument 'bogus'",
        "port                    | malformed agent argument 'port'",
        "=9464                   | malformed agent argument '=9464'",
        "port=0,,host=127.0.0.1  | empty agent argument (stray ',')",
        "port=0,                 | empty agent argument (stray ',')",
        "host=not a host,port=0  | bad value for agent argument host 'not a host'",
      })
  void aBadArgumentGivesOneLineAndTheHostRunsWithItsOwnExitCode(String args, String message) throws Exception {
    try (AgentProcess host = AgentProcess.start(args, Map.of(), "exit", "7")) {
      assertThat(host.waitFor(TIMEOUT)).as("exit code\n" + host.transcript()).isEqualTo(7);
      assertThat(host.stdout()).containsExactly("host ran");
      List<String> warnings = host.agentLines().stream().filter(l -> l.contains(" WARN ")).toList();
      assertThat(warnings).as(host.transcript()).hasSize(1);
      assertThat(warnings.get(0)).startsWith("[resync-meter] WARN ").contains(message);
    }
  }

  @Test
  void theSameProblemTwiceIsOneWarning() throws Exception {
    try (AgentProcess host = AgentProcess.start("=,,host=127.0.0.1,port=0", Map.of(), "exit", "7")) {
      assertThat(host.waitFor(TIMEOUT)).as("exit code\n" + host.transcript()).isEqualTo(7);
      assertThat(host.agentLines().stream().filter(l -> l.contains(" WARN ")).toList())
          .containsExactly(
              "[resync-meter] WARN malformed agent argument '=': expected key=value with key one of [host, port, disable, tls-cert, tls-key, tls-client-ca, basic-auth-user, basic-auth-password-file]; ignored",
              "[resync-meter] WARN empty agent argument (stray ',') in '=,,host=127.0.0.1,port=0'; ignored");
    }
  }

  @Test
  void garbageBytesAreReportedPrintablyOnOneLine() throws Exception {
    try (AgentProcess host = AgentProcess.start("port=0,k\u0001\u00e9\u2603=x", Map.of(), "exit", "7")) {
      assertThat(host.waitFor(TIMEOUT)).isEqualTo(7);
      List<String> warnings = host.agentLines().stream().filter(l -> l.contains(" WARN ")).toList();
      assertThat(warnings).hasSize(1);
      assertThat(warnings.get(0)).contains("unknown agent argument 'k\\u0001\\u00e9\\u2603'").matches("\\p{Print}+");
    }
  }

  @Test
  void aPortInUseGivesOneWarningAndTheHostRunsWithoutAnEndpoint() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        AgentProcess host = AgentProcess.start("host=127.0.0.1,port=" + taken.getLocalPort(), Map.of(), "exit", "7")) {
      assertThat(host.waitFor(TIMEOUT)).isEqualTo(7);
      assertThat(host.stdout()).containsExactly("host ran");
      assertThat(host.agentLines())
          .filteredOn(l -> l.contains(" WARN "))
          .singleElement()
          .asString()
          .contains("cannot serve metrics on 127.0.0.1:" + taken.getLocalPort() + ": the port is in use; counting goes on without an endpoint")
          .doesNotContain("Exception");
      assertThat(host.agentLines()).anyMatch(l -> l.contains("serving no endpoint"));
    }
  }

  @Test
  void theEnvironmentSetsThePortAndABadVariableIsReportedByName() throws Exception {
    int free;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      free = probe.getLocalPort();
    }
    try (AgentProcess host =
        AgentProcess.start(null, Map.of("RESYNC_METER_PORT", Integer.toString(free), "RESYNC_METER_HOST", "127.0.0.1"), "exit", "0")) {
      assertThat(host.waitFor(TIMEOUT)).isZero();
      assertThat(host.agentLines()).singleElement().asString().contains("serving http://127.0.0.1:" + free + "/metrics");
    }
    try (AgentProcess host = AgentProcess.start("port=0", Map.of("RESYNC_METER_PORT", "nine"), "exit", "0")) {
      assertThat(host.waitFor(TIMEOUT)).isZero();
      assertThat(host.agentLines())
          .filteredOn(l -> l.contains(" WARN "))
          .singleElement()
          .asString()
          .contains("bad value for environment variable RESYNC_METER_PORT 'nine'");
    }
  }

  @Test
  void theArgumentWinsOverTheEnvironment() throws Exception {
    try (AgentProcess host = AgentProcess.start("host=127.0.0.1,port=0", Map.of("RESYNC_METER_PORT", "1"), "exit", "0")) {
      assertThat(host.waitFor(TIMEOUT)).isZero();
      assertThat(host.agentLines()).singleElement().asString().doesNotContain(":1/metrics").contains("serving http://127.0.0.1:");
    }
  }

  @Test
  void theAgentSetsSystemPropertiesOnlyUnderItsOwnPrefix() throws Exception {
    java.util.Set<String> without;
    try (AgentProcess host = AgentProcess.startWithoutAgent("properties")) {
      assertThat(host.waitFor(TIMEOUT)).isZero();
      without = new java.util.TreeSet<>(host.stdout());
    }
    try (AgentProcess host = AgentProcess.start("host=127.0.0.1,port=0", Map.of(), "properties")) {
      assertThat(host.waitFor(TIMEOUT)).isZero();
      java.util.Set<String> added = new java.util.TreeSet<>(host.stdout());
      added.removeAll(without);
      // The JDK records the default time zone there the first time anything asks for it: no setting.
      added.remove("property user.timezone");
      // What the attach command reads (the agent's version and endpoint), and its ByteBuddy's settings
      // under the relocated names: all under the agent's prefix, never the host's.
      assertThat(added).contains("property dev.resyncmeter.agent.version", "property dev.resyncmeter.agent.endpoint");
      added.remove("property dev.resyncmeter.agent.version");
      added.remove("property dev.resyncmeter.agent.endpoint");
      assertThat(added).isNotEmpty().allMatch(p -> p.startsWith("property dev.resyncmeter.agent.shaded."));
    }
  }
}
