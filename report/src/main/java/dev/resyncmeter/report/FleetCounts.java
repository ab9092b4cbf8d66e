package dev.resyncmeter.report;

import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The fleet's report from the raw samples of resync-meter agents' series, read from a server
 * speaking the Prometheus HTTP query API ({@link PrometheusClient}): the report the endpoint gives,
 * pods summed.
 *
 * <p>Exact counts: {@code increase()} extrapolates to the range's edges, so it is not used. The raw
 * samples come from a range-vector selector in an instant query, and each series' increase is
 * computed here: within one run of the agent a counter's increase is its last value less its first;
 * a counter lower than before, or a new {@code resync_meter_start_time_seconds}, is a restart whose
 * later values count from zero; a series of a pod that started inside the range, or that appears
 * after its pod's first sample, counts from zero too. Only a pod that started before the range has
 * its first sample in it taken as the baseline: what it counted before that sample is not known.
 *
 * <p>Rates are per second of the time the series cover, not of the whole range: a pod counts from
 * its start (inside the range) or its first sample to its last sample, and a group's time is the
 * union of its pods'. A pod that lived 48 s of an hour shows its rate over those 48 s.
 */
final class FleetCounts {

  static final String START_TIME = "resync_meter_start_time_seconds";

  /** The series the report reads: its counters, the one gauge it shows, and the pods' start times. */
  static final List<String> COUNTERS =
      List.of(
          "informer_notifications_total", "informer_updates_total", "informer_noop_updates_total", "informer_resyncs_total", "informer_relists_total",
          "informer_relist_notifications_lost_total", "controller_reconcile_total", "controller_reconcile_duration_seconds_sum",
          "controller_reconcile_api_requests_total", "controller_reconcile_effect_total", "informer_own_write_updates_total");

  static final String RESYNC_PERIOD = "informer_resync_period_seconds";

  /**
   * The labels the agent itself puts on those series (docs/metrics.md): what is left of a series'
   * labels without them (and the name) is its scrape target, the pod.
   */
  static final Set<String> AGENT_LABELS =
      Set.of("kind", "handler", "type", "cause", "resource_version", "outcome", "reason", "controller", "trigger", "result", "verb", "effect", "version", "client", "client_version");

  private FleetCounts() {}

  /** The report of what {@code options} select. */
  static FleetReport read(PrometheusOptions options, PrintStream err) throws ReportException {
    PrometheusClient client = new PrometheusClient(options, err);
    Instant end = options.end == null ? Instant.ofEpochMilli(System.currentTimeMillis()) : options.end;
    long startMillis = end.toEpochMilli() - options.rangeMillis;
    List<String> names = Stream.concat(COUNTERS.stream(), Stream.of(RESYNC_PERIOD, START_TIME)).toList();
    Map<Map<String, String>, TreeMap<Long, Double>> series = client.samples(names, startMillis, end.toEpochMilli());
    if (series.isEmpty()) {
      throw new ReportException(
          options.url + " holds no resync-meter series" + (options.selector.isEmpty() ? "" : " matching " + options.selector) + " from "
              + Instant.ofEpochMilli(startMillis) + " to " + end + " (is the agent's endpoint scraped?)");
    }
    return of(series, options, end);
  }

  /** A scrape target: what the labels of its series have in common, the agent's own labels and the name left out. */
  static Map<String, String> target(Map<String, String> labels) {
    Map<String, String> target = new TreeMap<>(labels);
    target.keySet().removeAll(AGENT_LABELS);
    target.remove("__name__");
    return target;
  }

  /** What each pod's series counted in the range, summed into one report per group. */
  static FleetReport of(Map<Map<String, String>, TreeMap<Long, Double>> series, PrometheusOptions options, Instant end) throws ReportException {
    long rangeStart = end.toEpochMilli() - options.rangeMillis;
    Map<Map<String, String>, TreeMap<Long, Double>> startTimes = new HashMap<>();
    Map<Map<String, String>, Long> firstSample = new HashMap<>();
    Map<Map<String, String>, Long> lastSample = new HashMap<>();
    for (Map.Entry<Map<String, String>, TreeMap<Long, Double>> s : series.entrySet()) {
      Map<String, String> target = target(s.getKey());
      firstSample.merge(target, s.getValue().firstKey(), Math::min);
      lastSample.merge(target, s.getValue().lastKey(), Math::max);
      if (START_TIME.equals(s.getKey().get("__name__"))) {
        startTimes.computeIfAbsent(target, k -> new TreeMap<>()).putAll(s.getValue());
      }
    }
    for (String label : options.by) {
      if (series.keySet().stream().noneMatch(labels -> labels.containsKey(label))) {
        throw new ReportException("--by " + label + ": no series read carries the label " + label);
      }
    }
    Map<Map<String, String>, List<Map<String, String>>> groups = new TreeMap<>(FleetCounts::compare);
    for (Map<String, String> labels : series.keySet()) {
      Map<String, String> group = new LinkedHashMap<>();
      options.by.forEach(label -> group.put(label, labels.getOrDefault(label, "")));
      groups.computeIfAbsent(group, k -> new ArrayList<>()).add(labels);
    }
    List<FleetReport.Group> reports = new ArrayList<>();
    Set<Map<String, String>> allPods = new HashSet<>();
    Set<Map<String, String>> allFromFirstSample = new HashSet<>();
    for (Map.Entry<Map<String, String>, List<Map<String, String>>> group : groups.entrySet()) {
      Set<Map<String, String>> pods = new HashSet<>();
      Set<Map<String, String>> fromFirstSample = new HashSet<>();
      Map<Map<String, String>, long[]> covers = new HashMap<>();
      Set<String> clashing = namesInSeveralJobs(group.getValue());
      List<Scrape.Sample> samples = new ArrayList<>();
      for (Map<String, String> labels : group.getValue()) {
        Map<String, String> target = target(labels);
        pods.add(target);
        TreeMap<Long, Double> starts = startTimes.get(target);
        Double start = startAt(starts, firstSample.get(target));
        boolean startedInRange = start != null && start * 1000 >= rangeStart;
        if (!startedInRange) {
          fromFirstSample.add(target);
        }
        long last = lastSample.get(target);
        long from = startedInRange ? Math.min(Math.round(start * 1000), last) : firstSample.get(target);
        covers.put(target, new long[] {from, last});
        String name = labels.get("__name__");
        double value;
        if (COUNTERS.contains(name)) {
          value = increase(series.get(labels), starts, startedInRange, firstSample.get(target));
        } else if (RESYNC_PERIOD.equals(name)) {
          value = series.get(labels).lastEntry().getValue();
        } else {
          continue;
        }
        Map<String, String> reportLabels = new TreeMap<>(labels);
        reportLabels.remove("__name__");
        for (String named : List.of("controller", "handler")) {
          String n = reportLabels.get(named);
          if (n != null && clashing.contains(n)) {
            reportLabels.put(named, n + " (job " + labels.getOrDefault("job", "") + ")");
          }
        }
        samples.add(new Scrape.Sample(name, reportLabels, value));
      }
      allPods.addAll(pods);
      allFromFirstSample.addAll(fromFirstSample);
      // nothing covered (one sample a pod): nothing counted either, and the rate is 0 over the range
      long covered = covered(covers.values());
      double seconds = (covered > 0 ? covered : options.rangeMillis) / 1000.0;
      reports.add(new FleetReport.Group(group.getKey(), pods.size(), fromFirstSample.size(), ResyncReport.of(null, new Scrape(samples), seconds)));
    }
    return new FleetReport(options.url, options.selector, end, options.rangeMillis, options.by, allPods.size(), allFromFirstSample.size(), reports);
  }

  /**
   * A counter's increase from its raw samples: the sum over each run of the agent of its last value
   * less its base. The base is zero when the run began in the range (the pod started inside it, the
   * series appeared after the pod's first sample, or it follows a restart), else the first sample.
   * Each run is one subtraction, so a count that Prometheus holds exactly comes out exactly.
   */
  static double increase(TreeMap<Long, Double> samples, TreeMap<Long, Double> starts, boolean startedInRange, long podsFirstSample) {
    double increase = 0;
    double base = 0;
    Double previous = null;
    Double previousStart = null;
    for (Map.Entry<Long, Double> sample : samples.entrySet()) {
      double value = sample.getValue();
      Double start = startAt(starts, sample.getKey());
      if (previous == null) {
        boolean bornInRange = startedInRange || sample.getKey() > podsFirstSample;
        base = bornInRange ? 0 : value;
      } else if (value < previous || start != null && previousStart != null && !start.equals(previousStart)) {
        increase += previous - base;
        base = 0;
      }
      previous = value;
      previousStart = start;
    }
    return previous == null ? 0 : increase + previous - base;
  }

  /** The milliseconds that the union of {@code intervals} ({@code [from, to]} each) covers. */
  static long covered(Collection<long[]> intervals) {
    List<long[]> sorted = new ArrayList<>(intervals);
    sorted.sort((a, b) -> Long.compare(a[0], b[0]));
    long covered = 0;
    long end = Long.MIN_VALUE;
    for (long[] interval : sorted) {
      long from = Math.max(interval[0], end);
      if (interval[1] > from) {
        covered += interval[1] - from;
      }
      end = Math.max(end, interval[1]);
    }
    return covered;
  }

  /** The pod's start time as of {@code time}: its last start-time sample then, else its first one. */
  private static Double startAt(TreeMap<Long, Double> starts, Long time) {
    if (starts == null || starts.isEmpty() || time == null) {
      return null;
    }
    Map.Entry<Long, Double> at = starts.floorEntry(time);
    return at != null ? at.getValue() : starts.firstEntry().getValue();
  }

  /**
   * Controller and handler names that appear under more than one job: two programs that happen to
   * share a name are not replicas of one controller, so each keeps its job beside its name.
   */
  private static Set<String> namesInSeveralJobs(Collection<Map<String, String>> series) {
    Map<String, Set<String>> jobs = new HashMap<>();
    for (Map<String, String> labels : series) {
      for (String named : List.of("controller", "handler")) {
        if (labels.containsKey(named)) {
          jobs.computeIfAbsent(labels.get(named), k -> new HashSet<>()).add(labels.getOrDefault("job", ""));
        }
      }
    }
    Set<String> clashing = new HashSet<>();
    jobs.forEach((name, in) -> {
      if (in.size() > 1) {
        clashing.add(name);
      }
    });
    return clashing;
  }

  private static int compare(Map<String, String> a, Map<String, String> b) {
    return a.values().toString().compareTo(b.values().toString());
  }
}
