package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.testkit.Scrape;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The comparison every end-to-end test makes: exported counts equal the application's, both ways. */
final class ExactCounts {

  /** The informer families the resync scenario counts, all of them. */
  static final List<String> INFORMER_FAMILIES =
      List.of(
          "informer_notifications_total",
          "informer_updates_total",
          "informer_noop_updates_total",
          "informer_resyncs_total",
          "informer_relists_total",
          "informer_relist_notifications_lost_total");

  /** The command of the resync scenario with the periods and counts every test runs it with. */
  static final String[] RESYNC_SCENARIO = {"scenario", "4", "2", "6", "2"};
  /** The command of the reconcile scenario; it holds a slow reconcile until it is sent "release". */
  static final String[] RECONCILE_SCENARIO = {"reconcile-scenario", "phases"};

  private ExactCounts() {}

  /** Waits for the resync scenario's end and scrapes the agent then. */
  static Scrape resyncScenarioScrape(AgentProcess scenario) throws Exception {
    String url = scenario.metricsUrl(Duration.ofSeconds(60));
    scenario.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(120));
    return Scrape.of(url);
  }

  /** Releases the reconcile scenario's slow reconcile once it runs, waits for the end and scrapes the agent then. */
  static Scrape reconcileScenarioScrape(AgentProcess scenario) throws Exception {
    String url = scenario.metricsUrl(Duration.ofSeconds(60));
    scenario.awaitStdout("SLOW STARTED"::equals, Duration.ofSeconds(120));
    scenario.send("release");
    scenario.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(60));
    return Scrape.of(url);
  }

  /** The resync scenario's counts: every informer series the application counted, and no other. */
  static void assertResyncScenario(Map<String, Long> truth, Scrape scrape) {
    assertThat(truth).hasSizeGreaterThan(20).containsEntry("informer_relists_total{kind=\"ConfigMap\",reason=\"expired\"}", 2L);
    assertExported(truth, scrape);
    assertNothingElse(truth, scrape, INFORMER_FAMILIES);
  }

  /**
   * The reconcile scenario's counts: every series the application counted, no other reconcile,
   * trigger or retry series, and each controller's reconciles as many as its reconciler's own calls
   * ({@code reconciles_of{controller}}, a cross-check rather than a series).
   */
  static void assertReconcileScenario(Map<String, Long> printed, Scrape scrape) {
    Map<String, Long> truth = new LinkedHashMap<>(printed);
    Map<String, Long> reconcilesOf = new LinkedHashMap<>(truth);
    reconcilesOf.keySet().removeIf(series -> !series.startsWith("reconciles_of{"));
    truth.keySet().removeAll(reconcilesOf.keySet());
    assertThat(truth).hasSizeGreaterThan(20);
    assertThat(reconcilesOf).hasSize(2);
    assertExported(truth, scrape);
    assertNothingElse(
        truth,
        scrape,
        List.of(
            "controller_reconcile_total",
            "controller_reconcile_duration_seconds_count",
            "workqueue_trigger_adds_total",
            "workqueue_retries_total",
            "controller_reconcile_api_requests_total",
            EFFECTS));
    reconcilesOf.forEach(
        (series, counted) -> {
          String controller = series.substring("reconciles_of{".length(), series.length() - 1);
          assertThat(sum(scrape, "controller_reconcile_total", controller)).as(series).isEqualTo((double) counted);
        });
    assertEffectsAddUpToReconciles(scrape);
  }

  /** The fabric8 scenario's counts: every informer series its handlers counted, and no other. */
  static void assertFabric8Scenario(Map<String, Long> truth, Scrape scrape, String kind) {
    assertThat(truth)
        .hasSizeGreaterThan(15)
        .containsEntry("informer_relists_total{kind=\"" + kind + "\",reason=\"expired\"}", 1L)
        // the ADDED events a new watch replays are dropped by fabric8: one add per object created
        .containsEntry("informer_notifications_total{handler=\"Fabric8Sample$EveryUpdateHandler\",kind=\"" + kind + "\",type=\"add\"}", 5L);
    assertExported(truth, scrape);
    assertNothingElse(truth, scrape, INFORMER_FAMILIES);
    // fabric8 makes no relist update of an unchanged object, and here nothing changed during the relist
    assertThat(scrape.series().keySet()).noneMatch(s -> s.contains("cause=\"relist\""));
  }

  /** The API request families: every series of them a scenario counts, and no other, is exported. */
  static final List<String> API_REQUEST_FAMILIES =
      List.of("controller_reconcile_api_requests_total", "rest_client_requests_total", "rest_client_request_duration_seconds_count");

  /**
   * The JOSDK scenario's counts: every reconcile, informer and API request series the operator and its
   * client's interceptor counted, and no other.
   */
  static void assertJosdkScenario(Map<String, Long> printed, Scrape scrape) {
    Map<String, Long> truth = new LinkedHashMap<>(printed);
    Long reconciles = truth.remove("reconciles_of{configmap-operator}");
    assertThat(truth)
        .containsKeys(
            "controller_reconcile_total{controller=\"configmap-operator\",result=\"success\",trigger=\"periodic\"}",
            "controller_reconcile_total{controller=\"configmap-operator\",result=\"success\",trigger=\"requeue\"}",
            "controller_reconcile_total{controller=\"configmap-operator\",result=\"requeue\",trigger=\"change\"}",
            "controller_reconcile_total{controller=\"configmap-operator\",result=\"error\",trigger=\"change\"}");
    // what the operator's first periodic reconciles wrote: one change, three writes that changed nothing
    assertThat(truth)
        .containsEntry("controller_reconcile_effect_total{controller=\"configmap-operator\",effect=\"changed\",trigger=\"periodic\"}", 1L)
        .containsEntry("controller_reconcile_effect_total{controller=\"configmap-operator\",effect=\"unchanged\",trigger=\"periodic\"}", 3L)
        .containsKeys(
            "controller_reconcile_effect_total{controller=\"configmap-operator\",effect=\"none\",trigger=\"periodic\"}",
            "controller_reconcile_effect_total{controller=\"configmap-operator\",effect=\"changed\",trigger=\"change\"}",
            "controller_reconcile_effect_total{controller=\"configmap-operator\",effect=\"none\",trigger=\"requeue\"}");
    assertExported(truth, scrape);
    assertNothingElse(
        truth,
        scrape,
        List.of("controller_reconcile_total", "controller_reconcile_duration_seconds_count", EFFECTS, "informer_notifications_total", "informer_updates_total", "informer_noop_updates_total"));
    assertThat(truth).containsKeys(
        "controller_reconcile_api_requests_total{controller=\"configmap-operator\",trigger=\"periodic\",verb=\"get\"}",
        "controller_reconcile_api_requests_total{controller=\"configmap-operator\",trigger=\"change\",verb=\"patch\"}");
    assertNothingElse(truth, scrape, API_REQUEST_FAMILIES);
    assertThat(sum(scrape, "controller_reconcile_total", "configmap-operator")).isEqualTo((double) reconciles);
    assertEffectsAddUpToReconciles(scrape);
  }

  /** The reconciles by what their writes changed: {@code controller_reconcile_effect_total}. */
  static final String EFFECTS = "controller_reconcile_effect_total";

  /**
   * For every controller and trigger, the reconciles by effect add up exactly to the reconciles by
   * result: each reconcile the agent counts has one effect. Both from the scrape; both families
   * export only counts above zero, so the two sums have the same keys.
   */
  static void assertEffectsAddUpToReconciles(Scrape scrape) {
    Map<String, Double> byResult = sumByControllerAndTrigger(scrape, "controller_reconcile_total");
    assertThat(byResult).as("reconciles by controller and trigger").isNotEmpty();
    assertThat(sumByControllerAndTrigger(scrape, EFFECTS)).as("reconciles by effect, summed, against reconciles by result").isEqualTo(byResult);
  }

  private static final java.util.regex.Pattern LABEL = java.util.regex.Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  /** A family's counts summed by {@code controller} and {@code trigger}, keyed {@code controller/trigger}. */
  private static Map<String, Double> sumByControllerAndTrigger(Scrape scrape, String family) {
    Map<String, Double> sums = new java.util.TreeMap<>();
    scrape.series().forEach(
        (series, value) -> {
          if (series.startsWith(family + "{")) {
            Map<String, String> labels = new java.util.HashMap<>();
            java.util.regex.Matcher label = LABEL.matcher(series.substring(family.length()));
            while (label.find()) {
              labels.put(label.group(1), label.group(2));
            }
            sums.merge(labels.get("controller") + "/" + labels.get("trigger"), value, Double::sum);
          }
        });
    return sums;
  }

  /** Every series the application counted is exported with exactly its count (missing means 0). */
  static void assertExported(Map<String, Long> truth, Scrape scrape) {
    Map<String, Long> exported = new LinkedHashMap<>();
    truth.keySet().forEach(series -> exported.put(series, (long) scrape.value(series)));
    assertThat(exported).containsExactlyInAnyOrderEntriesOf(truth);
  }

  /** No non-zero series of these families is exported that the application did not count. */
  static void assertNothingElse(Map<String, Long> truth, Scrape scrape, List<String> families) {
    Map<String, Long> unexpected = new LinkedHashMap<>();
    scrape.series().forEach(
        (series, value) -> {
          boolean counted = families.stream().anyMatch(f -> series.startsWith(f + "{"));
          if (counted && value != 0 && !truth.containsKey(series)) {
            unexpected.put(series, value.longValue());
          }
        });
    assertThat(unexpected).isEmpty();
  }

  /** The sum of a family's series whose labels contain {@code labelMatch}. */
  static double sum(Scrape scrape, String family, String labelMatch) {
    return scrape.series().entrySet().stream()
        .filter(e -> e.getKey().startsWith(family + "{") && e.getKey().contains(labelMatch))
        .mapToDouble(Map.Entry::getValue)
        .sum();
  }
}
