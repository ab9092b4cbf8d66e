package dev.resyncmeter.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The wave ratio with all waves pooled, and what its interval over rounds can tell apart. */
class PooledRatioTest {

  @Test
  void wavesThatAreAllTenPercentSlowerGiveExactly110WithNoSpread() {
    List<double[]> without = List.of(new double[] {100, 200, 300}, new double[] {150, 250, 350});
    List<double[]> with = List.of(new double[] {110, 220, 330}, new double[] {165, 275, 385});

    PooledRatio ratio = PooledRatio.of(with, without, PooledRatio.Summary.MEDIAN);

    assertThat(ratio.value()).isCloseTo(1.10, within(1e-12));
    assertThat(ratio.low()).isCloseTo(1.10, within(1e-12));
    assertThat(ratio.high()).isCloseTo(1.10, within(1e-12));
    assertThat(ratio.rounds()).isEqualTo(2);
    assertThat(ratio.waves()).isEqualTo(6);
  }

  @Test
  void wallTimeIsSummedByTheMedianAndCpuByTheMean() {
    List<double[]> without = List.of(new double[] {100, 100, 400});
    List<double[]> with = List.of(new double[] {100, 110, 110});

    assertThat(PooledRatio.of(with, without, PooledRatio.Summary.MEDIAN).value()).isCloseTo(1.10, within(1e-12));
    assertThat(PooledRatio.of(with, without, PooledRatio.Summary.MEAN).value()).isCloseTo(320 / 600.0, within(1e-12));
  }

  @Test
  void aRoundWithoutItsPairIsLeftOut() {
    List<double[]> without = List.of(new double[] {100}, new double[] {100});
    List<double[]> with = List.of(new double[] {120});

    PooledRatio ratio = PooledRatio.of(with, without, PooledRatio.Summary.MEDIAN);

    assertThat(ratio.rounds()).isEqualTo(1);
    assertThat(ratio.value()).isCloseTo(1.20, within(1e-12));
    assertThat(PooledRatio.of(List.of(), without, PooledRatio.Summary.MEDIAN)).isNull();
  }

  @Test
  void noisyRoundsAroundAFivePercentCostAreToldFromTenOnlyWithEnoughWaves() {
    // waves swing by a third and each JVM's by about a hundredth, as on the bench machine; resync-meter costs 5 %
    PooledRatio few = simulated(3, 5, 1.05);
    PooledRatio many = simulated(12, 300, 1.05);

    assertThat(few.tellsApart(1.05, 1.10)).isFalse();
    assertThat(many.tellsApart(1.05, 1.10)).isTrue();
    assertThat(many.low()).isLessThanOrEqualTo(many.value());
    assertThat(many.high()).isGreaterThanOrEqualTo(many.value());
    assertThat(many.value()).isCloseTo(1.05, within(0.03));
  }

  @Test
  void theIntervalIsTheSameForTheSameWaves() {
    PooledRatio once = simulated(8, 15, 1.10);
    PooledRatio again = simulated(8, 15, 1.10);

    assertThat(again).isEqualTo(once);
    assertThat(once.text()).matches("\\d\\.\\d\\d \\(90 % interval \\d\\.\\d\\d–\\d\\.\\d\\d, 8 rounds, 120 waves each\\)");
  }

  private static PooledRatio simulated(int rounds, int wavesPerRun, double cost) {
    Random random = new Random(7);
    List<double[]> with = new ArrayList<>();
    List<double[]> without = new ArrayList<>();
    for (int r = 0; r < rounds; r++) {
      without.add(run(random, wavesPerRun, 1));
      with.add(run(random, wavesPerRun, cost));
    }
    return PooledRatio.of(with, without, PooledRatio.Summary.MEDIAN);
  }

  private static double[] run(Random random, int waves, double cost) {
    double jvm = 1 + 0.01 * random.nextGaussian();
    double[] millis = new double[waves];
    for (int i = 0; i < waves; i++) {
      millis[i] = 200 * cost * jvm * (1 + random.nextGaussian() / 3);
    }
    return millis;
  }
}
