package dev.resyncmeter.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.testkit.Tools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rule file is valid, and every alert fires when it should and stays silent when it should not. */
class RulesTest {

  @Test
  void promtoolAcceptsTheRuleFile() throws Exception {
    Tools.Result result = promtool("check", "rules", Dashboards.RULES.toString());
    assertThat(result.exit()).as(result.output()).isZero();
  }

  @Test
  void everyAlertPassesItsRuleUnitTests() throws Exception {
    Tools.Result result = promtool("test", "rules", Dashboards.RULE_TESTS.toString());
    assertThat(result.exit()).as(result.output()).isZero();
    assertThat(result.output()).contains("SUCCESS");
  }

  @Test
  void everyAlertHasAUnitTestASeverityAndARunbook() throws Exception {
    String tests = java.nio.file.Files.readString(Dashboards.RULE_TESTS, StandardCharsets.UTF_8);
    List<Map<String, Object>> alerts = Dashboards.rules().stream().filter(r -> r.containsKey("alert")).toList();
    assertThat(alerts).extracting(r -> r.get("alert"))
        .contains("ResyncCostHigh", "OwnWriteLoop", "RelistNotificationsLost", "ResyncMeterAgentErrors", "ResyncMeterTargetDown");
    for (Map<String, Object> alert : alerts) {
      assertThat(tests).as("unit test of " + alert.get("alert")).contains("alertname: " + alert.get("alert"));
      assertThat(((Map<?, ?>) alert.get("labels")).containsKey("severity")).as("severity of " + alert.get("alert")).isTrue();
      @SuppressWarnings("unchecked")
      Map<String, String> annotations = (Map<String, String>) alert.get("annotations");
      assertThat(annotations.get("summary")).isNotBlank();
      assertThat(annotations.get("description")).contains("Runbook:");
    }
  }

  /** A recording rule has no description: the comment above it says what the effects cannot see. */
  @Test
  void everyRuleOnEffectsSaysThatWritesOutsideTheKubernetesApiAreNotSeen() throws Exception {
    List<String> lines = java.nio.file.Files.readAllLines(Dashboards.RULES, StandardCharsets.UTF_8);
    List<String> onEffects = new java.util.ArrayList<>();
    for (Map<String, Object> rule : Dashboards.rules()) {
      if (!((String) rule.get("expr")).contains("controller_reconcile_effect_total")) {
        continue;
      }
      String name = (String) (rule.containsKey("record") ? rule.get("record") : rule.get("alert"));
      onEffects.add(name);
      String said;
      if (rule.containsKey("alert")) {
        @SuppressWarnings("unchecked")
        Map<String, String> annotations = (Map<String, String>) rule.get("annotations");
        said = annotations.get("description");
      } else {
        int at = lines.indexOf("      - record: " + name);
        StringBuilder comment = new StringBuilder();
        for (int i = at - 1; i >= 0 && lines.get(i).trim().startsWith("#"); i--) {
          comment.insert(0, lines.get(i).trim().substring(1).trim() + " ");
        }
        said = comment.toString();
      }
      assertThat(said.replaceAll("\\s+", " ")).as(name).contains(Dashboards.WRITES_NOT_SEEN);
    }
    assertThat(onEffects).containsExactly("resync_meter:noop_reconcile_waste_ratio:rate5m", "resync_meter:periodic_reconcile_waste_ratio:rate5m", "OwnWriteLoop");
  }

  /**
   * A loop is loop steps (echoes whose effect is changed) that keep coming: summed over the
   * controller's replicas, in every 5 minutes, for 15 minutes; one now and then is a real change met
   * on the way and does not fire.
   */
  @Test
  void theOwnWriteLoopAlertCountsLoopStepsPerControllerOverReplicasForFifteenMinutes() throws Exception {
    Map<String, Object> alert = Dashboards.rules().stream().filter(r -> "OwnWriteLoop".equals(r.get("alert"))).findFirst().orElseThrow();
    assertThat(alert.get("expr"))
        .isEqualTo("sum by (job, namespace, controller) (increase(controller_reconcile_effect_total{trigger=\"own_write\", effect=\"changed\"}[5m])) > 0");
    assertThat(alert.get("for")).isEqualTo("15m");
    @SuppressWarnings("unchecked")
    Map<String, String> annotations = (Map<String, String>) alert.get("annotations");
    assertThat(annotations.get("description")).contains("Runbook:").contains("own-write-loops").contains("Echoes of own writes by effect");
  }

  private static Tools.Result promtool(String... args) throws IOException, InterruptedException {
    return Tools.run(Dashboards.RULES.getParent(), "promtool", Tools.PROMETHEUS_PACKAGE, args);
  }
}
