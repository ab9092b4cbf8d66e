package dev.resyncmeter.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * A line longer than 100 columns breaks between phrases, or between words: never between a number
 * and its unit, inside {@code = 78%}, or inside a count out of another.
 */
class TableFormatTest {

  @Test
  void aControllerLineBreaksBeforeItsPeriodicPhraseNotInsideItsSecondsOrShare() throws Exception {
    // josdk.prom read as a 30 s window: the rates make the controller line 107 columns long
    Scrape josdk = Scrape.parse(Files.readString(ReportCommandTest.SCRAPES.resolve("josdk.prom")), "josdk.prom");
    String table = TableFormat.render(ResyncReport.of(null, josdk, 30.0), "josdk.prom");
    assertThat(table)
        .contains(
            "  configmap-operator\n"
                + "    reconciles 58 (1.93/s), 0.38 s; on no-op triggers 0, 0.00 s = 0% [----------];\n"
                + "      periodic 46, 0.27 s = 72%\n"
                + "    api requests 58 (1.93/s); on no-op triggers 0 = 0%; periodic 46 = 79%\n");
  }

  @Test
  void aPhraseLongerThanTheLineBreaksBetweenWordsKeepingCountsWhole() {
    assertThat(
            TableFormat.wrap(
                "    => enqueues every no-op update: a ResourceVersion check in onUpdate would have saved 123 of 456 reconciles (27%), 12 s of 45 s"))
        .isEqualTo(
            "    => enqueues every no-op update: a ResourceVersion check in onUpdate would have saved\n"
                + "      123 of 456 reconciles (27%), 12 s of 45 s\n");
  }

  @Test
  void theLastPhraseThatFitsEndsTheLine() {
    assertThat(
            TableFormat.wrap(
                "    updates 1234 (41.13/s), no-op 76% [########--] (resync 940, relist 12), enqueued 952, dropped 0, unknown 3"))
        .isEqualTo(
            "    updates 1234 (41.13/s), no-op 76% [########--] (resync 940, relist 12), enqueued 952, dropped 0,\n"
                + "      unknown 3\n");
    assertThat(TableFormat.wrap("    reconciles 5000 (166.67/s), 12 s; on no-op triggers 4000, 9.5 s = 79% [########--]; periodic 38, 0.54 s = 78%"))
        .isEqualTo(
            "    reconciles 5000 (166.67/s), 12 s; on no-op triggers 4000, 9.5 s = 79% [########--];\n"
                + "      periodic 38, 0.54 s = 78%\n");
  }

  @Test
  void aLineWithoutAPlaceToBreakStaysWhole() {
    String path = "x".repeat(120);
    assertThat(TableFormat.wrap("  " + path)).isEqualTo("  " + path + "\n");
    assertThat(TableFormat.wrap("resync cost of " + path + ", since the agent started"))
        .isEqualTo("resync cost of\n  " + path + ", since the agent started\n");
  }
}
