package dev.resyncmeter.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resyncmeter.report.ReportCommandTest.Run;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A {@code --selector} with a syntax error is refused before anything is queried, with the user's
 * own selector and where in it the mistake is; an error only the server finds (a regular expression)
 * has its position moved from the report's query into the selector.
 */
class SelectorTest {

  @RegisterExtension final FakePrometheus prometheus = new FakePrometheus();

  @Test
  void aSyntaxErrorIsShownInTheUsersSelectorWithWhereItIs() {
    Map<String, String> wrong = new LinkedHashMap<>();
    wrong.put("{namespace=payments}", "'{namespace=payments}' at character 12 ('payments}'): a label's value goes in quotes: namespace=\"payments\"");
    wrong.put("{namespace=\"a\"", "'{namespace=\"a\"' at its end: a } is missing to close the { at character 1");
    wrong.put("namespace=\"a\"}", "'namespace=\"a\"}' at character 14 ('}'): this } closes no {");
    wrong.put("{namespace=\"a\" job=\"b\"}", "'{namespace=\"a\" job=\"b\"}' at character 16 ('job=\"b\"}'): a comma is missing between two label matchers");
    wrong.put("{namespace=\"a\",,}", "'{namespace=\"a\",,}' at character 16 (',}'): a label matcher is missing after the comma");
    wrong.put("{namespace}", "'{namespace}' at character 11 ('}'): =, !=, =~ or !~ is expected after the label name namespace");
    wrong.put("{namespace=}", "'{namespace=}' at character 12 ('}'): a value in quotes is missing after namespace=");
    wrong.put("{1a=\"x\"}", "'{1a=\"x\"}' at character 2 ('1a=\"x\"}'): a label name is expected here, such as namespace in namespace=\"payments\"");
    wrong.put("{pod=~\"web-\\d+\"}",
        "'{pod=~\"web-\\d+\"}' at character 12 ('\\d+\"}'): \\d is no escape PromQL knows: write \\\\d for a backslash (as a regular expression needs),"
            + " or quote the value with `back quotes`");
    wrong.put("{namespace=\"pay}", "'{namespace=\"pay}' at character 12 ('\"pay}'): this \" has no closing \"");
    wrong.put("{namespace=\"a\"}[5m]", "'{namespace=\"a\"}[5m]' at character 16 ('[5m]'): nothing may follow the selector's }: give label matchers only,"
        + " such as '{namespace=\"payments\"}'");
    wrong.put("up{job=\"a\"}", "'up{job=\"a\"}' at character 1 ('up{job=\"a\"}'): a metric name (up) picks one of the many metrics the report reads:"
        + " give label matchers only, such as '{job=\"a\"}'");
    wrong.put("{\"up\"}", "'{\"up\"}' at character 2 ('\"up\"}'): a metric name (\"up\") picks one of the many metrics the report reads: give label matchers only");
    wrong.put("{__name__=\"up\"}", "'{__name__=\"up\"}' at character 2 ('__name__=\"up\"}'): a matcher of __name__ picks one of the many metrics the report reads:"
        + " give label matchers only, such as '{namespace=\"payments\"}'");
    wrong.put("{a=\"\\x4\"}", "'{a=\"\\x4\"}' at character 5 ('\\x4\"}'): the escape at this \\ needs 2 hex digits");
    wrong.put("{a=\"\\uD800\"}", "'{a=\"\\uD800\"}' at character 5 ('\\uD800\"}'): the escape at this \\ is no Unicode character");
    wrong.forEach((selector, problem) ->
        assertThatThrownBy(() -> Selector.parse(selector)).as(selector).isInstanceOf(UsageException.class).hasMessage("--selector " + problem));
  }

  @Test
  void whatPromQLAcceptsIsTakenAsItIs() throws UsageException {
    Map<String, String> matchers = new LinkedHashMap<>();
    matchers.put("", "");
    matchers.put("{}", "");
    matchers.put("  { }  ", "");
    matchers.put("namespace=\"payments\"", "namespace=\"payments\"");
    matchers.put("{namespace=\"payments\"}", "namespace=\"payments\"");
    matchers.put(" { a = \"x\" , b !~ 'y.*' , c =~ `\\d+`, } ", "a = \"x\" , b !~ 'y.*' , c =~ `\\d+`,");
    matchers.put("{\"service.name\"=\"checkout\"}", "\"service.name\"=\"checkout\"");
    matchers.put("{a=\"\\u00e9\\x41\\101\\n\\\"\", b='it\\'s'}", "a=\"\\u00e9\\x41\\101\\n\\\"\", b='it\\'s'");
    matchers.put("{\n  cluster=\"eu\",\n  job!=\"canary\"\n}", "cluster=\"eu\",\n  job!=\"canary\"");
    matchers.put("{on=\"x\",by=\"y\"}", "on=\"x\",by=\"y\"");
    for (Map.Entry<String, String> m : matchers.entrySet()) {
      Selector selector = Selector.parse(m.getKey());
      assertThat(selector.matchers).as(m.getKey()).isEqualTo(m.getValue());
      assertThat(m.getKey().substring(selector.matchersAt)).as(m.getKey()).startsWith(m.getValue());
    }
  }

  @Test
  void theCommandRefusesTheSelectorWithExitTwoAndQueriesNothing() {
    Run run = PrometheusReportTest.run("--prometheus", prometheus.url(), "--selector", "{namespace=payments}");
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.out()).isEmpty();
    assertThat(run.err())
        .startsWith("resync-meter report: --selector '{namespace=payments}' at character 12 ('payments}'): a label's value goes in quotes: namespace=\"payments\"\n")
        .contains(ReportCommand.USAGE);
    assertThat(prometheus.requests).isEmpty();
  }

  /**
   * Prometheus parses a regular expression, and says where in the query it failed, in bytes: the
   * report moves that into the selector (here behind a two-byte character, so bytes and characters
   * differ).
   */
  @Test
  void anErrorTheServerFindsIsShownInTheUsersSelector() {
    prometheus.answer(r -> {
      String before = r.query().substring(0, r.query().indexOf("namespace=~"));
      int column = before.getBytes(StandardCharsets.UTF_8).length + 1;
      return FakePrometheus.error(400, "bad_data", "invalid parameter \"query\": 1:" + column + ": parse error: error parsing regexp: missing closing ): `pay(ments`");
    });
    Run run = PrometheusReportTest.run("--prometheus", prometheus.url(), "--selector", "{team=\"ü\", namespace=~\"pay(ments\"}");
    assertThat(run.out()).isEmpty();
    assertThat(run.err())
        .isEqualTo(
            "resync-meter report: " + prometheus.url() + " rejected --selector '{team=\"ü\", namespace=~\"pay(ments\"}' at character 12"
                + " ('namespace=~\"pay(ment...'): error parsing regexp: missing closing ): `pay(ments`\n");
    assertThat(run.exit()).isEqualTo(1);

    // a position outside the selector, or none (another server's words), leaves the error as the server gave it
    prometheus.answer(r -> FakePrometheus.error(400, "bad_data", "invalid parameter \"query\": 1:2: parse error: unexpected something"));
    assertThat(PrometheusReportTest.run("--prometheus", prometheus.url(), "--selector", "{namespace=~\"pay.*\"}").err())
        .isEqualTo("resync-meter report: " + prometheus.url() + " rejected the query of --selector {namespace=~\"pay.*\"}: invalid parameter \"query\": 1:2:"
            + " parse error: unexpected something\n");
    prometheus.answer(r -> FakePrometheus.error(422, "bad_data", "cannot parse regexp \"pay(ments\""));
    assertThat(PrometheusReportTest.run("--prometheus", prometheus.url(), "--selector", "namespace=~\"pay(ments\"").err())
        .isEqualTo("resync-meter report: " + prometheus.url() + " rejected the query of --selector {namespace=~\"pay(ments\"}: cannot parse regexp \"pay(ments\"\n");
  }

  @Test
  void prometheusPositionsAreLinesAndColumnsOfBytes() {
    assertThat(Selector.charIndex("{a=\"x\"}", 1, 2)).isEqualTo(1);
    assertThat(Selector.charIndex("{é=\"x\",b}", 1, 9)).isEqualTo(7);
    assertThat(Selector.charIndex("{a=\"x\",\n b}", 2, 2)).isEqualTo(9);
    assertThat(Selector.charIndex("{a}", 3, 1)).isEqualTo(-1);
  }
}
