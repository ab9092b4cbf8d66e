package dev.resyncmeter.report;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What no-op updates cost, per handler and per controller, over a window between two scrapes (or
 * since the agent started, from one). A counter lower in the later scrape than in the earlier one
 * was reset (the process restarted): its later value is what it counted since.
 */
public record ResyncReport(Double windowSeconds, List<Handler> handlers, List<Controller> controllers, List<Informer> informers) {

  public enum Verdict {
    ENQUEUES_NOOPS,
    FILTERS_NOOPS,
    NO_NOOPS_SEEN,
    UNKNOWN;

    public String jsonName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** One handler of one informer kind. */
  public record Handler(
      String kind,
      String handler,
      double updates,
      Map<String, Double> noopUpdatesByCause,
      double noopUpdates,
      double enqueued,
      double dropped,
      double unknown,
      Double resyncPeriodSeconds,
      Verdict verdict,
      String verdictText) {}

  public record TriggerCost(double reconciles, double seconds) {}

  /**
   * One controller's reconciles; the no-op triggers are the resync cost, {@code periodic} beside it.
   * {@code apiRequests} is null when the scrape has no API request series of the controller.
   */
  public record Controller(
      String controller,
      double reconciles,
      double reconcileSeconds,
      double noopReconciles,
      double noopReconcileSeconds,
      double periodicReconciles,
      double periodicReconcileSeconds,
      Map<String, TriggerCost> byTrigger,
      ApiRequests apiRequests) {}

  /** API requests sent while the controller's reconciles (or handler calls) ran: all, on no-op triggers by verb, periodic beside. */
  public record ApiRequests(double requests, double noopRequests, Map<String, Double> noopRequestsByVerb, double periodicRequests) {}

  public record Informer(String kind, double resyncs, Map<String, Double> relistsByReason, double relistNotificationsLost) {}

  /** The report of {@code later} against {@code earlier} (null: everything since the agent started). */
  public static ResyncReport of(Scrape earlier, Scrape later, Double windowSeconds) {
    Map<String, Double> before = new HashMap<>();
    if (earlier != null) {
      earlier.samples().forEach(s -> before.put(s.key(), s.value()));
    }
    Map<String, Map<String, Double>> noopByCause = new TreeMap<>();
    Map<String, double[]> perHandler = new TreeMap<>(); // updates, noops, enqueued, dropped, unknown
    Map<String, Double> periods = new HashMap<>();
    Map<String, Map<String, TriggerCost>> perController = new TreeMap<>();
    Map<String, double[]> apiRequests = new HashMap<>(); // requests, periodic
    Map<String, Map<String, Double>> noopApiRequests = new HashMap<>(); // by verb
    Map<String, double[]> perInformer = new TreeMap<>(); // resyncs, lost
    Map<String, Map<String, Double>> relists = new TreeMap<>();
    for (Scrape.Sample sample : later.samples()) {
      Map<String, String> l = sample.labels();
      double delta = delta(before.get(sample.key()), sample.value());
      String handler = l.getOrDefault("kind", "") + "\u0000" + l.getOrDefault("handler", "");
      switch (sample.name()) {
        case "informer_notifications_total" -> perHandler.computeIfAbsent(handler, k -> new double[5]);
        case "informer_updates_total" -> perHandler.computeIfAbsent(handler, k -> new double[5])[0] += delta;
        case "informer_noop_updates_total" -> {
          double[] h = perHandler.computeIfAbsent(handler, k -> new double[5]);
          h[1] += delta;
          switch (l.getOrDefault("outcome", "")) {
            case "enqueued" -> h[2] += delta;
            case "dropped" -> h[3] += delta;
            default -> h[4] += delta;
          }
          noopByCause.computeIfAbsent(handler, k -> new TreeMap<>()).merge(l.getOrDefault("cause", ""), delta, Double::sum);
        }
        case "informer_resync_period_seconds" -> {
          perHandler.computeIfAbsent(handler, k -> new double[5]);
          periods.put(handler, sample.value());
        }
        case "controller_reconcile_total" -> cost(perController, l).merge(l.getOrDefault("trigger", ""), new TriggerCost(delta, 0), ResyncReport::add);
        case "controller_reconcile_duration_seconds_sum" ->
            cost(perController, l).merge(l.getOrDefault("trigger", ""), new TriggerCost(0, delta), ResyncReport::add);
        case "controller_reconcile_api_requests_total" -> {
          String controller = l.getOrDefault("controller", "");
          double[] a = apiRequests.computeIfAbsent(controller, k -> new double[2]);
          Map<String, Double> noop = noopApiRequests.computeIfAbsent(controller, k -> new TreeMap<>());
          a[0] += delta;
          String trigger = l.getOrDefault("trigger", "");
          if (trigger.endsWith("_noop")) {
            noop.merge(l.getOrDefault("verb", ""), delta, Double::sum);
          } else if (trigger.equals("periodic")) {
            a[1] += delta;
          }
        }
        case "informer_resyncs_total" -> perInformer.computeIfAbsent(l.getOrDefault("kind", ""), k -> new double[2])[0] += delta;
        case "informer_relist_notifications_lost_total" -> perInformer.computeIfAbsent(l.getOrDefault("kind", ""), k -> new double[2])[1] += delta;
        case "informer_relists_total" -> {
          perInformer.computeIfAbsent(l.getOrDefault("kind", ""), k -> new double[2]);
          relists.computeIfAbsent(l.getOrDefault("kind", ""), k -> new TreeMap<>()).merge(l.getOrDefault("reason", ""), delta, Double::sum);
        }
        default -> {}
      }
    }
    List<Controller> controllers = new ArrayList<>();
    perController.forEach((name, byTrigger) -> {
      double[] a = apiRequests.get(name);
      ApiRequests api = a == null ? null : new ApiRequests(a[0], sum(noopApiRequests.get(name)), noopApiRequests.get(name), a[1]);
      controllers.add(controller(name, byTrigger, api));
    });
    List<Handler> handlers = new ArrayList<>();
    perHandler.forEach((key, h) -> {
      String[] kindAndName = key.split("\u0000", 2);
      Controller fed = controllers.stream().filter(c -> c.controller().equals(kindAndName[1])).findFirst().orElse(null);
      Verdict verdict = h[1] == 0 ? Verdict.NO_NOOPS_SEEN : h[2] > 0 ? Verdict.ENQUEUES_NOOPS : h[4] > 0 ? Verdict.UNKNOWN : Verdict.FILTERS_NOOPS;
      handlers.add(
          new Handler(kindAndName[0], kindAndName[1], h[0], noopByCause.getOrDefault(key, Map.of()), h[1], h[2], h[3], h[4], periods.get(key), verdict,
              verdictText(verdict, h, fed)));
    });
    List<Informer> informers = new ArrayList<>();
    perInformer.forEach((kind, i) -> informers.add(new Informer(kind, i[0], relists.getOrDefault(kind, Map.of()), i[1])));
    return new ResyncReport(windowSeconds, handlers, controllers, informers);
  }

  /** A counter's increase; a later value below the earlier one means it was reset and counted anew. */
  static double delta(Double earlier, double later) {
    if (earlier == null || later < earlier) {
      return later;
    }
    return later - earlier;
  }

  private static Map<String, TriggerCost> cost(Map<String, Map<String, TriggerCost>> perController, Map<String, String> labels) {
    return perController.computeIfAbsent(labels.getOrDefault("controller", ""), k -> new TreeMap<>());
  }

  private static TriggerCost add(TriggerCost a, TriggerCost b) {
    return new TriggerCost(a.reconciles() + b.reconciles(), a.seconds() + b.seconds());
  }

  private static double sum(Map<String, Double> counts) {
    return counts.values().stream().mapToDouble(Double::doubleValue).sum();
  }

  private static Controller controller(String name, Map<String, TriggerCost> byTrigger, ApiRequests apiRequests) {
    double reconciles = 0;
    double seconds = 0;
    double noop = 0;
    double noopSeconds = 0;
    for (Map.Entry<String, TriggerCost> e : byTrigger.entrySet()) {
      reconciles += e.getValue().reconciles();
      seconds += e.getValue().seconds();
      if (e.getKey().endsWith("_noop")) {
        noop += e.getValue().reconciles();
        noopSeconds += e.getValue().seconds();
      }
    }
    TriggerCost periodic = byTrigger.getOrDefault("periodic", new TriggerCost(0, 0));
    return new Controller(name, reconciles, seconds, noop, noopSeconds, periodic.reconciles(), periodic.seconds(), byTrigger, apiRequests);
  }

  private static String verdictText(Verdict verdict, double[] h, Controller fed) {
    return switch (verdict) {
      case NO_NOOPS_SEEN -> "no no-op updates";
      case FILTERS_NOOPS -> "drops every no-op update: it checks already, nothing to save";
      case UNKNOWN -> "hands its no-op updates to no queue the agent sees: what they cost is unknown";
      case ENQUEUES_NOOPS -> {
        String what = h[3] == 0 && h[4] == 0 ? "enqueues every no-op update" : String.format(Locale.ROOT, "enqueues %.0f of %.0f no-op updates", h[2], h[1]);
        if (fed == null || fed.reconciles() == 0) {
          yield what + ": a ResourceVersion check in onUpdate would skip them";
        }
        yield String.format(
            "%s: a ResourceVersion check in onUpdate would have saved %.0f of %.0f reconciles (%s), %s of %s",
            what, fed.noopReconciles(), fed.reconciles(), percent(fed.noopReconciles(), fed.reconciles()),
            seconds(fed.noopReconcileSeconds()), seconds(fed.reconcileSeconds()));
      }
    };
  }

  static String percent(double part, double whole) {
    return whole == 0 ? "0%" : Math.round(100 * part / whole) + "%";
  }

  static String seconds(double seconds) {
    return seconds >= 10 ? String.format(Locale.ROOT, "%.0f s", seconds) : seconds >= 1 ? String.format(Locale.ROOT, "%.1f s", seconds) : String.format(Locale.ROOT, "%.2f s", seconds);
  }
}
