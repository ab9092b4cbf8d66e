package dev.resyncmeter.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * resync-meter's waves over no agent's with every measured wave of every round pooled, and a
 * bootstrap interval that resamples whole rounds.
 *
 * <p>A single wave of this machine's two cores swings by a third either way, and a JVM's JIT choices
 * move all of its waves together: a ratio of two runs, or the median of a few such ratios, cannot
 * tell 1.05 from 1.10. Pooling many waves per configuration narrows the per-wave noise; resampling
 * rounds (a no-agent run and a resync-meter run side by side, kept together) carries the between-JVM
 * noise and the machine's drift into the interval instead of hiding it.
 *
 * @param value the ratio over all waves pooled
 * @param low the interval's lower end ({@link #COVERAGE} of the resampled ratios lie between low and high)
 * @param high its upper end
 * @param rounds the rounds pooled
 * @param waves the measured waves pooled per configuration
 */
record PooledRatio(double value, double low, double high, int rounds, int waves) {

  static final double COVERAGE = 0.90;
  static final int RESAMPLES = 4000;
  /** Fixed: the same waves always give the same interval. */
  private static final long SEED = 30;

  /** How the waves of one configuration are summed up: wall time by its median, CPU by its mean. */
  enum Summary {
    MEDIAN,
    MEAN;

    double of(double[] values) {
      if (this == MEAN) {
        return Arrays.stream(values).average().orElse(Double.NaN);
      }
      double[] sorted = values.clone();
      Arrays.sort(sorted);
      int n = sorted.length;
      return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
  }

  /**
   * {@code with.get(r)} and {@code without.get(r)}: the waves of round r's resync-meter run and
   * no-agent run. Rounds missing either side are left out. Null when no round has both.
   */
  static PooledRatio of(List<double[]> with, List<double[]> without, Summary summary) {
    int rounds = Math.min(with.size(), without.size());
    if (rounds == 0) {
      return null;
    }
    double value = ratio(with, without, identity(rounds), summary);
    Random random = new Random(SEED);
    double[] resampled = new double[RESAMPLES];
    int[] picked = new int[rounds];
    for (int i = 0; i < RESAMPLES; i++) {
      for (int r = 0; r < rounds; r++) {
        picked[r] = random.nextInt(rounds);
      }
      resampled[i] = ratio(with, without, picked, summary);
    }
    Arrays.sort(resampled);
    double tail = (1 - COVERAGE) / 2;
    double low = resampled[(int) Math.floor(tail * (RESAMPLES - 1))];
    double high = resampled[(int) Math.ceil((1 - tail) * (RESAMPLES - 1))];
    int waves = 0;
    for (int r = 0; r < rounds; r++) {
      waves += with.get(r).length;
    }
    return new PooledRatio(value, low, high, rounds, waves);
  }

  /** Whether the interval is narrow enough to tell {@code a} from {@code b}: it cannot hold both. */
  boolean tellsApart(double a, double b) {
    return high - low < Math.abs(b - a);
  }

  /** "1.31 (90 % interval 1.25–1.37, 10 rounds, 150 waves each)". */
  String text() {
    return Figures.fmt(value) + " (" + Math.round(COVERAGE * 100) + " % interval " + Figures.fmt(low) + "–" + Figures.fmt(high) + ", " + rounds
        + " rounds, " + waves + " waves each)";
  }

  private static double ratio(List<double[]> with, List<double[]> without, int[] rounds, Summary summary) {
    return summary.of(pool(with, rounds)) / summary.of(pool(without, rounds));
  }

  private static double[] pool(List<double[]> runs, int[] rounds) {
    return Arrays.stream(rounds).mapToObj(runs::get).flatMapToDouble(Arrays::stream).toArray();
  }

  private static int[] identity(int n) {
    int[] all = new int[n];
    Arrays.setAll(all, i -> i);
    return all;
  }
}
