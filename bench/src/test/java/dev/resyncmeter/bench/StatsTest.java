package dev.resyncmeter.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The interval printed beside a paired ratio: what a number of rounds can and cannot tell apart. */
class StatsTest {

  @Test
  void eightRoundsGiveTheSecondSmallestToTheSecondLargestAt93Percent() {
    Stats stats = Stats.of(List.of(1.26, 0.80, 1.34, 0.91, 0.96, 1.09, 1.13, 1.16));

    double[] interval = stats.medianInterval();

    assertThat(interval[0]).isEqualTo(0.91);
    assertThat(interval[1]).isEqualTo(1.26);
    assertThat(interval[2]).isCloseTo(1 - 2 * 9 / 256.0, within(1e-12));
    assertThat(MarkdownReport.medianIntervalText(stats)).isEqualTo("93 % interval of the median 0.91–1.26");
  }

  @Test
  void fewerThanFiveRoundsHaveNoIntervalAndFiveHaveTheirWholeRange() {
    assertThat(Stats.of(List.of(1.0, 1.1, 1.2, 1.3)).medianInterval()).isNull();
    assertThat(MarkdownReport.medianIntervalText(Stats.of(List.of(1.0, 1.1, 1.2, 1.3)))).isEmpty();
    assertThat(Stats.of(List.of(1.0, 1.1, 1.2, 1.3, 1.4)).medianInterval()).containsExactly(1.0, 1.4, 1 - 2 / 32.0);
  }

  @Test
  void moreRoundsNarrowTheInterval() {
    List<Double> twenty = new java.util.ArrayList<>();
    for (int i = 1; i <= 20; i++) {
      twenty.add(i / 10.0);
    }
    double[] interval = Stats.of(twenty).medianInterval();
    // P(Bin(20, 1/2) <= 5) = 0.0207, <= 6 = 0.0577: the 6th smallest to the 6th largest
    assertThat(interval[0]).isEqualTo(0.6);
    assertThat(interval[1]).isEqualTo(1.5);
  }
}
