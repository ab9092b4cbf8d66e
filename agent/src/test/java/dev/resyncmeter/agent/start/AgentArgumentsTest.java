package dev.resyncmeter.agent.start;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentArgumentsTest {

  @Test
  void withoutArgumentsTheDefaultsHold() {
    AgentArguments args = AgentArguments.parse(null, Map.of());
    assertThat(args.host()).isEqualTo("0.0.0.0");
    assertThat(args.port()).isEqualTo(9464);
    assertThat(args.problems()).isEmpty();
  }

  @Test
  void readsHostAndPort() {
    AgentArguments args = AgentArguments.parse("host=127.0.0.1,port=0", Map.of());
    assertThat(args.host()).isEqualTo("127.0.0.1");
    assertThat(args.port()).isZero();
    assertThat(args.problems()).isEmpty();
  }

  @Test
  void keysAreCaseInsensitiveAndSpacesAroundPiecesAreIgnored() {
    AgentArguments args = AgentArguments.parse(" PORT = 9000 , host=::1", Map.of());
    assertThat(args.port()).isEqualTo(9000);
    assertThat(args.host()).isEqualTo("::1");
    assertThat(args.problems()).isEmpty();
  }

  @Test
  void theEnvironmentGivesValuesAndArgumentsWin() {
    Map<String, String> env = Map.of("RESYNC_METER_PORT", "9100", "RESYNC_METER_HOST", "127.0.0.2");
    assertThat(AgentArguments.parse(null, env).port()).isEqualTo(9100);
    assertThat(AgentArguments.parse(null, env).host()).isEqualTo("127.0.0.2");
    assertThat(AgentArguments.parse("port=9200", env).port()).isEqualTo(9200);
    assertThat(AgentArguments.parse("port=9200", env).host()).isEqualTo("127.0.0.2");
  }

  @Test
  void aBadPortKeepsTheDefaultAndSaysSoOnce() {
    for (String bad : new String[] {"abc", "65536", "-1", "", "1e3", "123456"}) {
      AgentArguments args = AgentArguments.parse("port=" + bad, Map.of());
      assertThat(args.port()).as(bad).isEqualTo(9464);
      assertThat(args.problems()).as(bad).singleElement().asString().startsWith("bad value for agent argument port '" + bad + "'");
    }
  }

  @Test
  void aBadValueAfterAGoodOneKeepsTheGoodOne() {
    AgentArguments args = AgentArguments.parse("port=9000,port=x", Map.of());
    assertThat(args.port()).isEqualTo(9000);
    assertThat(args.problems()).singleElement().asString().contains("using 9000");
  }

  @Test
  void unknownMalformedAndEmptyPiecesAreEachOneProblem() {
    AgentArguments args = AgentArguments.parse("color=red,port,,=1,port=1234", Map.of());
    assertThat(args.port()).isEqualTo(1234);
    assertThat(args.problems())
        .hasSize(4)
        .anyMatch(p -> p.startsWith("unknown agent argument 'color'"))
        .anyMatch(p -> p.startsWith("malformed agent argument 'port'"))
        .anyMatch(p -> p.startsWith("empty agent argument"))
        .anyMatch(p -> p.startsWith("malformed agent argument '=1'"));
  }

  @Test
  void theSameProblemTwiceIsOneLine() {
    AgentArguments strays = AgentArguments.parse("=,,port=0", Map.of());
    assertThat(strays.port()).isZero();
    assertThat(strays.problems())
        .containsExactly(
            "malformed agent argument '=': expected key=value with key one of [host, port, disable, tls-cert, tls-key, tls-client-ca, basic-auth-user, basic-auth-password-file]; ignored",
            "empty agent argument (stray ',') in '=,,port=0'; ignored");
    assertThat(AgentArguments.parse("port=x,port=x", Map.of()).problems()).singleElement().asString().startsWith("bad value for agent argument port 'x'");
  }

  @Test
  void whatWasWrongLeavesOutWhatTheAgentWouldDoInstead() {
    AgentArguments args = AgentArguments.parse("port=abc,bogus=1", Map.of());
    assertThat(args.problems())
        .containsExactly(
            "bad value for agent argument port 'abc': expected a port number from 0 to 65535 (0 picks a free port); using 9464",
            "unknown agent argument 'bogus' (known: host, port, disable, tls-cert, tls-key, tls-client-ca, basic-auth-user, basic-auth-password-file); ignored");
    assertThat(args.whatWasWrong())
        .containsExactly(
            "bad value for agent argument port 'abc': expected a port number from 0 to 65535 (0 picks a free port)",
            "unknown agent argument 'bogus' (known: host, port, disable, tls-cert, tls-key, tls-client-ca, basic-auth-user, basic-auth-password-file)");
    assertThat(AgentArguments.parse("host=127.0.0.1,port=0", Map.of()).whatWasWrong()).isEmpty();
  }

  @Test
  void aBadEnvironmentValueNamesTheVariable() {
    AgentArguments args = AgentArguments.parse(null, Map.of("RESYNC_METER_PORT", "x"));
    assertThat(args.problems()).singleElement().asString().startsWith("bad value for environment variable RESYNC_METER_PORT 'x'");
  }

  private static final String PARTS =
      "(parts: clientjava-informer, clientjava-workqueue, clientjava-controller, clientjava-requests, fabric8-informer, fabric8-requests, josdk-reconciler)";

  @Test
  void nothingIsDisabledUnlessAsked() {
    assertThat(AgentArguments.parse(null, Map.of()).disabled()).isEmpty();
    assertThat(AgentArguments.parse("port=0", Map.of()).disabled()).isEmpty();
  }

  @Test
  void disableTakesPartsJoinedWithPlusBesideTheOtherArguments() {
    AgentArguments args = AgentArguments.parse("port=0,disable=fabric8-requests+ClientJava-Workqueue ,host=127.0.0.1", Map.of());
    assertThat(args.disabled()).containsExactlyInAnyOrder("fabric8-requests", "clientjava-workqueue");
    assertThat(args.port()).isZero();
    assertThat(args.host()).isEqualTo("127.0.0.1");
    assertThat(args.problems()).isEmpty();
  }

  @Test
  void anUnknownPartIsOneLineNamingItAndTheOthersAreStillDisabled() {
    AgentArguments args = AgentArguments.parse("disable=fabric8-request+josdk-reconciler", Map.of());
    assertThat(args.disabled()).containsExactly("josdk-reconciler");
    assertThat(args.problems()).containsExactly("unknown part 'fabric8-request' in agent argument disable " + PARTS + "; ignored");
  }

  @Test
  void aCommaEndsTheArgumentAndThePartAfterItIsNamedWithTheSeparatorToUse() {
    AgentArguments args = AgentArguments.parse("disable=fabric8-requests,josdk-reconciler", Map.of());
    assertThat(args.disabled()).containsExactly("fabric8-requests");
    assertThat(args.problems())
        .containsExactly(
            "malformed agent argument 'josdk-reconciler': expected key=value with key one of [host, port, disable, tls-cert, tls-key, tls-client-ca, basic-auth-user, basic-auth-password-file]"
                + " (parts to disable are joined with '+': disable=a+b); ignored");
  }

  @Test
  void theEnvironmentVariableTakesPlusOrCommaAndAnArgumentReplacesItsList() {
    Map<String, String> env = Map.of("RESYNC_METER_DISABLE", "fabric8-requests, josdk-reconciler+clientjava-requests");
    assertThat(AgentArguments.parse(null, env).disabled()).containsExactlyInAnyOrder("fabric8-requests", "josdk-reconciler", "clientjava-requests");
    assertThat(AgentArguments.parse("disable=fabric8-informer", env).disabled()).containsExactly("fabric8-informer");
    assertThat(AgentArguments.parse("disable=", env).disabled()).as("an empty argument turns the variable's list off").isEmpty();
    assertThat(AgentArguments.parse("disable=", env).problems()).isEmpty();
    assertThat(AgentArguments.parse(null, Map.of("RESYNC_METER_DISABLE", "nope")).problems())
        .containsExactly("unknown part 'nope' in environment variable RESYNC_METER_DISABLE " + PARTS + "; ignored");
  }

  @Test
  void eachUnknownPartIsItsOwnLineAndEmptyNamesAreNothing() {
    AgentArguments args = AgentArguments.parse("disable=+a++b+", Map.of());
    assertThat(args.disabled()).isEmpty();
    assertThat(args.problems()).hasSize(2).allMatch(p -> p.startsWith("unknown part '"));
  }

  @Test
  void controlCharactersAndLongValuesArePrintedSafely() {
    assertThat(AgentArguments.printable("a\nb\u0000c\u00e9")).isEqualTo("a\\u000ab\\u0000c\\u00e9");
    assertThat(AgentArguments.printable("x".repeat(200))).hasSize(83).endsWith("...");
  }

  @Test
  void tlsAndBasicAuthComeFromArgumentsOrTheirVariables() {
    AgentArguments args =
        AgentArguments.parse(
            "tls-cert=/etc/tls/tls.crt,tls-key=/etc/tls/tls.key,basic-auth-user=prometheus",
            Map.of("RESYNC_METER_TLS_CLIENT_CA", "/etc/ca/ca.crt", "RESYNC_METER_BASIC_AUTH_PASSWORD_FILE", "/etc/auth/password", "RESYNC_METER_TLS_KEY", "/other"));
    assertThat(args.problems()).isEmpty();
    assertThat(args.endpoint())
        .as("an argument wins over its variable")
        .isEqualTo(new AgentArguments.EndpointSettings("/etc/tls/tls.crt", "/etc/tls/tls.key", "/etc/ca/ca.crt", "prometheus", "/etc/auth/password"));
    assertThat(AgentArguments.parse("port=0", Map.of()).endpoint().any()).isFalse();
    assertThat(AgentArguments.parse("tls-cert=", Map.of("RESYNC_METER_TLS_CERT", "/x")).endpoint().any()).as("an empty argument unsets its variable").isFalse();
  }

  @Test
  void aPasswordOnTheCommandLineIsRefusedWithoutBeingPrinted() {
    AgentArguments args = AgentArguments.parse("basic-auth-user=u,basic-auth-password=hunter2", Map.of());
    assertThat(args.problems())
        .containsExactly(
            "agent argument basic-auth-password is not taken: a password on a command line is read by anyone who can list processes;"
                + " put it in a file and give basic-auth-password-file; ignored");
    assertThat(String.join("\n", args.problems())).doesNotContain("hunter2");
  }
}
