package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

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

  private ExactCounts() {}

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
        List.of("controller_reconcile_total", "controller_reconcile_duration_seconds_count", "workqueue_trigger_adds_total", "workqueue_retries_total"));
    reconcilesOf.forEach(
        (series, counted) -> {
          String controller = series.substring("reconciles_of{".length(), series.length() - 1);
          assertThat(sum(scrape, "controller_reconcile_total", controller)).as(series).isEqualTo((double) counted);
        });
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
