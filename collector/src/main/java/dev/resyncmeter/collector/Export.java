package dev.resyncmeter.collector;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One scrape of the meters the collector keeps itself (the hot-path ones: plain counters and bucket
 * arrays instead of Micrometer meters), gathered family by family. A family appears only once it
 * has a data point, as a Micrometer meter appears only once it is made. Names are Prometheus names
 * without the {@code _total} that the exposition adds to counters.
 */
final class Export {

  private final Map<String, Family> families = new LinkedHashMap<>();

  void counter(String name, String help, Labels labels, double value) {
    family(name, help, Type.COUNTER).counters.add(CounterDataPointSnapshot.builder().labels(labels).value(value).build());
  }

  void gauge(String name, String help, Labels labels, double value) {
    family(name, help, Type.GAUGE).gauges.add(GaugeDataPointSnapshot.builder().labels(labels).value(value).build());
  }

  void histogram(String name, String help, HistogramDataPointSnapshot point) {
    family(name, help, Type.HISTOGRAM).histograms.add(point);
  }

  MetricSnapshots snapshots() {
    MetricSnapshots.Builder all = MetricSnapshots.builder();
    for (Map.Entry<String, Family> entry : families.entrySet()) {
      all.metricSnapshot(entry.getValue().build(entry.getKey()));
    }
    return all.build();
  }

  private Family family(String name, String help, Type type) {
    return families.computeIfAbsent(name, n -> new Family(help, type));
  }

  private enum Type {
    COUNTER,
    GAUGE,
    HISTOGRAM
  }

  private static final class Family {
    final String help;
    final Type type;
    final List<CounterDataPointSnapshot> counters = new java.util.ArrayList<>();
    final List<GaugeDataPointSnapshot> gauges = new java.util.ArrayList<>();
    final List<HistogramDataPointSnapshot> histograms = new java.util.ArrayList<>();

    Family(String help, Type type) {
      this.help = help;
      this.type = type;
    }

    MetricSnapshot build(String name) {
      return switch (type) {
        case COUNTER -> {
          CounterSnapshot.Builder b = CounterSnapshot.builder().name(name).help(help);
          counters.forEach(b::dataPoint);
          yield b.build();
        }
        case GAUGE -> {
          GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(help);
          gauges.forEach(b::dataPoint);
          yield b.build();
        }
        case HISTOGRAM -> {
          HistogramSnapshot.Builder b = HistogramSnapshot.builder().name(name).help(help);
          histograms.forEach(b::dataPoint);
          yield b.build();
        }
      };
    }
  }
}
