package dev.resyncmeter.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * The depth table: at each queue depth (objects in the resync wave), the process CPU resync-meter adds
 * per item, from pairs of runs (one without an agent, one with resync-meter, side by side), and how
 * flat that is across depths. An agent whose queue work does not grow with depth has a flatness
 * ratio near 1.
 */
final class DepthTable {

  static final double COVERAGE = 0.90;
  static final int RESAMPLES = 4000;
  /** Fixed: the same pairs always give the same interval. */
  private static final long SEED = 45;

  private DepthTable() {}

  /**
   * One depth: {@code noneNsPerItem.get(p)} and {@code withNsPerItem.get(p)} are pair p's process CPU
   * per item (its run's median wave over the objects) without an agent and with resync-meter.
   */
  record Row(int objects, List<Double> noneNsPerItem, List<Double> withNsPerItem) {

    /** Per pair, the CPU per item resync-meter added. */
    double[] added() {
      int pairs = Math.min(noneNsPerItem.size(), withNsPerItem.size());
      double[] added = new double[pairs];
      for (int p = 0; p < pairs; p++) {
        added[p] = withNsPerItem.get(p) - noneNsPerItem.get(p);
      }
      return added;
    }

    /** The median of the pairs' added CPU per item. */
    double addedMedian() {
      return median(added());
    }

    /** A percentile-bootstrap interval ({@link #COVERAGE}) of that median, resampling pairs: low and high. */
    double[] addedInterval() {
      double[] added = added();
      if (added.length == 0) {
        return new double[] {Double.NaN, Double.NaN};
      }
      Random random = new Random(SEED);
      double[] medians = new double[RESAMPLES];
      double[] sample = new double[added.length];
      for (int i = 0; i < RESAMPLES; i++) {
        for (int p = 0; p < added.length; p++) {
          sample[p] = added[random.nextInt(added.length)];
        }
        medians[i] = median(sample);
      }
      Arrays.sort(medians);
      double tail = (1 - COVERAGE) / 2;
      return new double[] {medians[(int) Math.floor(tail * (RESAMPLES - 1))], medians[(int) Math.ceil((1 - tail) * (RESAMPLES - 1))]};
    }

    int pairs() {
      return added().length;
    }
  }

  /** The added CPU per item at the deepest depth over that at the shallowest; NaN with fewer than two depths. */
  static double flatness(List<Row> rows) {
    if (rows.size() < 2) {
      return Double.NaN;
    }
    Row shallowest = rows.get(0);
    Row deepest = rows.get(0);
    for (Row row : rows) {
      shallowest = row.objects() < shallowest.objects() ? row : shallowest;
      deepest = row.objects() > deepest.objects() ? row : deepest;
    }
    return deepest.addedMedian() / shallowest.addedMedian();
  }

  /** The table in Markdown, then the flatness ratio. */
  static String markdown(List<Row> rows) {
    StringBuilder md = new StringBuilder();
    md.append("| objects | no agent CPU ns/item | resync-meter CPU ns/item | added ns/item (median of pairs) | ")
        .append(Math.round(COVERAGE * 100)).append(" % interval | pairs |\n|---|---|---|---|---|---|\n");
    for (Row row : rows) {
      double[] interval = row.addedInterval();
      md.append("| ").append(String.format(Locale.ROOT, "%,d", row.objects())).append(" | ").append(Figures.fmt(median(row.noneNsPerItem())))
          .append(" | ").append(Figures.fmt(median(row.withNsPerItem()))).append(" | **").append(Figures.fmt(row.addedMedian())).append("** | ")
          .append(Figures.fmt(interval[0])).append("–").append(Figures.fmt(interval[1])).append(" | ").append(row.pairs()).append(" |\n");
    }
    md.append('\n').append(flatnessLine(rows)).append('\n');
    return md.toString();
  }

  /** "Flatness (added ns/item at 500,000 ÷ at 10,000): 1.04". */
  static String flatnessLine(List<Row> rows) {
    if (rows.size() < 2) {
      return "Flatness: needs two depths.";
    }
    List<Integer> depths = new ArrayList<>(rows.stream().map(Row::objects).sorted().toList());
    return String.format(Locale.ROOT, "Flatness (added ns/item at %,d ÷ at %,d): %s", depths.get(depths.size() - 1), depths.get(0), Figures.fmt(flatness(rows)));
  }

  /** The console line of one depth. */
  static String consoleLine(Row row) {
    double[] interval = row.addedInterval();
    return String.format(
        Locale.ROOT,
        "[bench]   depth %,d: CPU/item no agent %s ns, resync-meter %s ns, added %s ns (%d %% interval %s–%s, %d pairs)", row.objects(),
        Figures.fmt(median(row.noneNsPerItem())), Figures.fmt(median(row.withNsPerItem())), Figures.fmt(row.addedMedian()), Math.round(COVERAGE * 100),
        Figures.fmt(interval[0]), Figures.fmt(interval[1]), row.pairs());
  }

  static double median(List<Double> values) {
    return median(values.stream().mapToDouble(Double::doubleValue).toArray());
  }

  static double median(double[] values) {
    return values.length == 0 ? Double.NaN : PooledRatio.Summary.MEDIAN.of(values);
  }
}
