package dev.resyncmeter.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The depth table's figures: added CPU per item from pairs, its interval, the flatness ratio and the table. */
class DepthTableTest {

  private static final DepthTable.Row SHALLOW = new DepthTable.Row(10_000, List.of(1000.0, 1100.0, 900.0), List.of(1100.0, 1220.0, 990.0));
  private static final DepthTable.Row DEEP = new DepthTable.Row(500_000, List.of(2000.0, 2100.0, 1900.0), List.of(2120.0, 2230.0, 2000.0));

  @Test
  void theAddedCpuPerItemIsTheMedianOfEachPairsDifference() {
    assertThat(SHALLOW.added()).containsExactly(100.0, 120.0, 90.0);
    assertThat(SHALLOW.addedMedian()).isEqualTo(100.0);
    assertThat(SHALLOW.pairs()).isEqualTo(3);
  }

  @Test
  void theIntervalLiesWithinThePairsAndHoldsTheMedian() {
    double[] interval = SHALLOW.addedInterval();
    assertThat(interval[0]).isBetween(90.0, 100.0);
    assertThat(interval[1]).isBetween(100.0, 120.0);
    assertThat(new DepthTable.Row(1, List.of(5.0), List.of(7.0)).addedInterval()).containsExactly(2.0, 2.0);
  }

  @Test
  void flatnessIsTheDeepestDepthsAddedCpuOverTheShallowests() {
    assertThat(DepthTable.flatness(List.of(DEEP, SHALLOW))).isCloseTo(1.2, within(1e-9));
    assertThat(DepthTable.flatness(List.of(SHALLOW))).isNaN();
    assertThat(DepthTable.flatnessLine(List.of(SHALLOW, DEEP))).isEqualTo("Flatness (added ns/item at 500,000 ÷ at 10,000): 1.20");
  }

  @Test
  void theTableHasARowPerDepthAndTheFlatnessBelow() {
    String md = DepthTable.markdown(List.of(SHALLOW, DEEP));
    assertThat(md.lines().toList())
        .startsWith(
            "| objects | no agent CPU ns/item | resync-meter CPU ns/item | added ns/item (median of pairs) | 90 % interval | pairs |",
            "|---|---|---|---|---|---|")
        .contains("| 10,000 | 1000 | 1100 | **100.0** | " + range(SHALLOW) + " | 3 |", "Flatness (added ns/item at 500,000 ÷ at 10,000): 1.20");
  }

  @Test
  void aDepthWithoutPairsIsNotMeasured() {
    DepthTable.Row none = new DepthTable.Row(10_000, List.of(), List.of());
    assertThat(none.addedMedian()).isNaN();
    assertThat(DepthTable.consoleLine(none)).contains("added n/a ns");
  }

  private static String range(DepthTable.Row row) {
    double[] interval = row.addedInterval();
    return Figures.fmt(interval[0]) + "–" + Figures.fmt(interval[1]);
  }
}
