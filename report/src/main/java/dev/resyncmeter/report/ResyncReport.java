package dev.resyncmeter.report;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What no-op updates cost, per handler and per controller, over a window between two scrapes (or
 * since the agent started, from one), and what the reconciles they (and JOSDK's timer) caused
 * changed. A counter lower in the later scrape than in the earlier one was reset (the process
 * restarted): its later value is what it counted since.
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

  /**
   * What to do about a controller's reconciles on the no-op triggers, and about those of JOSDK's
   * timer ({@code periodic}), judged by what their writes to the Kubernetes API changed.
   */
  public enum EffectVerdict {
    /** Every no-op-triggered reconcile changed nothing: a ResourceVersion check loses nothing seen. */
    NOOP_WASTE,
    /** Some changed something: resync repaired state the watch did not carry. */
    NOOP_REPAIRS,
    /** The scrape lacks the effect of some (an agent without the effect series): neither can be said. */
    NOOP_NOT_MEASURED,
    NO_NOOP_RECONCILES,
    // the same four for the periodic reconciles
    TIMER_WASTE,
    TIMER_REPAIRS,
    TIMER_NOT_MEASURED,
    NO_TIMER_RECONCILES;

    public String jsonName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** What to do about a controller's reconciles on its own writes (trigger {@code own_write}): its echoes. */
  public enum EchoVerdict {
    /** Every echo changed nothing: the controller settles, and could skip updates whose resourceVersion it wrote itself. */
    ECHO_WASTE,
    /** Some echoes changed something again (loop steps): each such write echoes once more. */
    ECHO_LOOP,
    /** The scrape lacks the effect of some echoes: whether they changed anything cannot be said. */
    ECHO_NOT_MEASURED,
    NO_ECHO_RECONCILES;

    public String jsonName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * One handler of one informer kind. {@code ownWriteUpdates}: its update calls that were echoes of a
   * write of this process ({@code informer_own_write_updates_total}); null when the scrape has no such
   * series for it (an older agent).
   */
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
      Double ownWriteUpdates,
      Verdict verdict,
      String verdictText) {}

  public record TriggerCost(double reconciles, double seconds) {}

  /**
   * Reconciles by what their writes to the Kubernetes API changed: {@code none} sent no write,
   * {@code unchanged} sent only writes that changed nothing, {@code changed} the rest.
   */
  public record Effects(double none, double unchanged, double changed) {
    static final Effects ZERO = new Effects(0, 0, 0);

    public double changedNothing() {
      return none + unchanged;
    }

    Effects plus(Effects other) {
      return new Effects(none + other.none, unchanged + other.unchanged, changed + other.changed);
    }
  }

  /**
   * One controller's reconciles; the no-op triggers are the resync cost, {@code periodic} beside it.
   * {@code apiRequests} is null when the scrape has no API request series of the controller.
   * {@code effectsByTrigger} holds the triggers with effect series (none: an agent that does not
   * count effects); {@code noopEffects} and {@code periodicEffects} sum them for the two verdicts.
   * {@code echoes}, {@code echoVerdict} and {@code echoVerdictText} are null when the scrape has no
   * series of the controller with the trigger {@code own_write} (no echo seen, or an older agent).
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
      ApiRequests apiRequests,
      Map<String, Effects> effectsByTrigger,
      Effects noopEffects,
      Effects periodicEffects,
      EffectVerdict noopVerdict,
      String noopVerdictText,
      EffectVerdict timerVerdict,
      String timerVerdictText,
      Echoes echoes,
      EchoVerdict echoVerdict,
      String echoVerdictText) {}

  /**
   * A controller's echoes: its reconciles on the trigger {@code own_write} (an update that its own
   * write sent back through the watch), their seconds, their API requests (null when the scrape has no
   * API request series of the controller), what their writes changed, and the loop steps among them:
   * echoes whose writes changed something again, which will echo again.
   */
  public record Echoes(double reconciles, double seconds, Double apiRequests, Effects effects, double loopSteps) {}

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
    Map<String, double[]> apiRequests = new HashMap<>(); // requests, periodic, own_write
    Map<String, Double> ownWriteUpdates = new HashMap<>();
    Set<String> echoing = new HashSet<>(); // controllers with an own_write series
    Map<String, Map<String, Double>> noopApiRequests = new HashMap<>(); // by verb
    Map<String, Map<String, Effects>> effects = new HashMap<>(); // by controller, by trigger
    Map<String, double[]> perInformer = new TreeMap<>(); // resyncs, lost
    Map<String, Map<String, Double>> relists = new TreeMap<>();
    for (Scrape.Sample sample : later.samples()) {
      Map<String, String> l = sample.labels();
      double delta = delta(before.get(sample.key()), sample.value());
      String handler = l.getOrDefault("kind", "") + "\u0000" + l.getOrDefault("handler", "");
      if (OWN_WRITE.equals(l.get("trigger")) && l.containsKey("controller")) {
        echoing.add(l.getOrDefault("controller", ""));
      }
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
        case "informer_own_write_updates_total" -> {
          perHandler.computeIfAbsent(handler, k -> new double[5]);
          ownWriteUpdates.merge(handler, delta, Double::sum);
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
          double[] a = apiRequests.computeIfAbsent(controller, k -> new double[3]);
          Map<String, Double> noop = noopApiRequests.computeIfAbsent(controller, k -> new TreeMap<>());
          a[0] += delta;
          String trigger = l.getOrDefault("trigger", "");
          if (isNoop(trigger)) {
            noop.merge(l.getOrDefault("verb", ""), delta, Double::sum);
          } else if (trigger.equals("periodic")) {
            a[1] += delta;
          } else if (trigger.equals(OWN_WRITE)) {
            a[2] += delta;
          }
        }
        case "controller_reconcile_effect_total" -> {
          cost(perController, l); // its reconciles are counted too; an effect alone still shows its controller
          effects.computeIfAbsent(l.getOrDefault("controller", ""), k -> new TreeMap<>()).merge(l.getOrDefault("trigger", ""), effect(l, delta), Effects::plus);
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
      Double echoRequests = a == null ? null : a[2];
      controllers.add(controller(name, byTrigger, api, effects.getOrDefault(name, Map.of()), echoing.contains(name), echoRequests));
    });
    List<Handler> handlers = new ArrayList<>();
    perHandler.forEach((key, h) -> {
      String[] kindAndName = key.split("\u0000", 2);
      Controller fed = controllers.stream().filter(c -> c.controller().equals(kindAndName[1])).findFirst().orElse(null);
      Verdict verdict = h[1] == 0 ? Verdict.NO_NOOPS_SEEN : h[2] > 0 ? Verdict.ENQUEUES_NOOPS : h[4] > 0 ? Verdict.UNKNOWN : Verdict.FILTERS_NOOPS;
      handlers.add(
          new Handler(kindAndName[0], kindAndName[1], h[0], noopByCause.getOrDefault(key, Map.of()), h[1], h[2], h[3], h[4], periods.get(key), ownWriteUpdates.get(key), verdict,
              verdictText(verdict, h, fed)));
    });
    List<Informer> informers = new ArrayList<>();
    perInformer.forEach((kind, i) -> informers.add(new Informer(kind, i[0], relists.getOrDefault(kind, Map.of()), i[1])));
    return new ResyncReport(windowSeconds, handlers, controllers, informers);
  }

  /** The trigger of a reconcile of an update that the controller's own write sent back: an echo. */
  public static final String OWN_WRITE = "own_write";

  /**
   * A no-op trigger: an update whose resource version did not change (resync, relist, watch). An
   * echo ({@code own_write}) is not one: its resource version did change, by the controller's write.
   */
  static boolean isNoop(String trigger) {
    return trigger.endsWith("_noop");
  }

  /** What the counts span, after the title's source: {@code , over 12 s}, or since the agent started. */
  String span() {
    return windowSeconds == null ? ", since the agent started" : ", over " + seconds(windowSeconds);
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

  /** One effect series' count; Scrape.parse refuses an effect it does not know, so none is left uncounted. */
  private static Effects effect(Map<String, String> labels, double count) {
    return switch (labels.getOrDefault("effect", "")) {
      case "none" -> new Effects(count, 0, 0);
      case "unchanged" -> new Effects(0, count, 0);
      case "changed" -> new Effects(0, 0, count);
      default -> throw new IllegalArgumentException("an effect none of none, unchanged, changed: " + labels);
    };
  }

  private static TriggerCost add(TriggerCost a, TriggerCost b) {
    return new TriggerCost(a.reconciles() + b.reconciles(), a.seconds() + b.seconds());
  }

  private static double sum(Map<String, Double> counts) {
    return counts.values().stream().mapToDouble(Double::doubleValue).sum();
  }

  private static Controller controller(
      String name, Map<String, TriggerCost> byTrigger, ApiRequests apiRequests, Map<String, Effects> effectsByTrigger, boolean echoing, Double echoRequests) {
    double reconciles = 0;
    double seconds = 0;
    double noop = 0;
    double noopSeconds = 0;
    for (Map.Entry<String, TriggerCost> e : byTrigger.entrySet()) {
      reconciles += e.getValue().reconciles();
      seconds += e.getValue().seconds();
      if (isNoop(e.getKey())) {
        noop += e.getValue().reconciles();
        noopSeconds += e.getValue().seconds();
      }
    }
    TriggerCost periodic = byTrigger.getOrDefault("periodic", new TriggerCost(0, 0));
    Effects noopEffects = Effects.ZERO;
    for (Map.Entry<String, Effects> e : effectsByTrigger.entrySet()) {
      if (isNoop(e.getKey())) {
        noopEffects = noopEffects.plus(e.getValue());
      }
    }
    Effects periodicEffects = effectsByTrigger.getOrDefault("periodic", Effects.ZERO);
    EffectVerdict noopVerdict = effectVerdict(false, noop, noopEffects);
    EffectVerdict timerVerdict = effectVerdict(true, periodic.reconciles(), periodicEffects);
    Echoes echoes = null;
    EchoVerdict echoVerdict = null;
    String echoVerdictText = null;
    if (echoing) {
      TriggerCost echo = byTrigger.getOrDefault(OWN_WRITE, new TriggerCost(0, 0));
      Effects echoEffects = effectsByTrigger.getOrDefault(OWN_WRITE, Effects.ZERO);
      echoes = new Echoes(echo.reconciles(), echo.seconds(), echoRequests, echoEffects, echoEffects.changed());
      echoVerdict = echoVerdict(echoes);
      echoVerdictText = echoVerdictText(echoVerdict, echoes);
    }
    return new Controller(
        name, reconciles, seconds, noop, noopSeconds, periodic.reconciles(), periodic.seconds(), byTrigger, apiRequests, effectsByTrigger,
        noopEffects, periodicEffects, noopVerdict,
        effectVerdictText(noopVerdict, noop, noopSeconds, apiRequests == null ? null : apiRequests.noopRequests(), noopEffects),
        timerVerdict,
        effectVerdictText(timerVerdict, periodic.reconciles(), periodic.seconds(), apiRequests == null ? null : apiRequests.periodicRequests(), periodicEffects),
        echoes, echoVerdict, echoVerdictText);
  }

  /**
   * A loop as soon as one echo changed something again, whatever the others did; settled (waste) only
   * when every echo is counted as having changed nothing.
   */
  private static EchoVerdict echoVerdict(Echoes echoes) {
    if (echoes.loopSteps() > 0) {
      return EchoVerdict.ECHO_LOOP;
    }
    if (echoes.reconciles() == 0) {
      return EchoVerdict.NO_ECHO_RECONCILES;
    }
    if (echoes.effects().changedNothing() < echoes.reconciles()) {
      return EchoVerdict.ECHO_NOT_MEASURED;
    }
    return EchoVerdict.ECHO_WASTE;
  }

  private static String echoVerdictText(EchoVerdict verdict, Echoes echoes) {
    String cost = echoes.apiRequests() == null ? seconds(echoes.seconds()) : seconds(echoes.seconds()) + " and " + count(echoes.apiRequests(), "API request");
    return switch (verdict) {
      case NO_ECHO_RECONCILES -> "no reconciles on its own writes";
      // worded so that only the nouns after the counts change with them: a count of one takes the singular
      case ECHO_WASTE ->
          "its own writes echoed back as " + count(echoes.reconciles(), "reconcile") + " that changed nothing: it could skip updates whose resourceVersion"
              + " it wrote itself, and save " + cost;
      case ECHO_LOOP ->
          "a loop: " + count(echoes.loopSteps(), "reconcile") + " on its own writes changed something again: look at which fields it writes on every reconcile";
      case ECHO_NOT_MEASURED -> echoes.effects().changedNothing() == 0
          ? "what the " + count(echoes.reconciles(), "reconcile") + " on its own writes changed is not measured: the scrape has no"
              + " controller_reconcile_effect_total for them"
          : String.format(
              Locale.ROOT, "what %s on its own writes changed is not measured (no controller_reconcile_effect_total for them); the other %.0f changed nothing",
              countOf(echoes.reconciles() - echoes.effects().changedNothing(), "the", echoes.reconciles(), "reconcile"), echoes.effects().changedNothing());
    };
  }

  /**
   * Waste only when every one of the reconciles is counted as having changed nothing: a reconcile
   * whose effect the scrape does not hold may have repaired something.
   */
  private static EffectVerdict effectVerdict(boolean timer, double reconciles, Effects effects) {
    if (reconciles == 0) {
      return timer ? EffectVerdict.NO_TIMER_RECONCILES : EffectVerdict.NO_NOOP_RECONCILES;
    }
    if (effects.changed() > 0) {
      return timer ? EffectVerdict.TIMER_REPAIRS : EffectVerdict.NOOP_REPAIRS;
    }
    if (effects.changedNothing() < reconciles) {
      return timer ? EffectVerdict.TIMER_NOT_MEASURED : EffectVerdict.NOOP_NOT_MEASURED;
    }
    return timer ? EffectVerdict.TIMER_WASTE : EffectVerdict.NOOP_WASTE;
  }

  /** {@code requests}: null when the scrape has no API request series of the controller. */
  private static String effectVerdictText(EffectVerdict verdict, double reconciles, double seconds, Double requests, Effects effects) {
    String saved = requests == null
        ? count(reconciles, "reconcile") + " and " + seconds(seconds)
        : count(reconciles, "reconcile") + ", " + seconds(seconds) + " and " + count(requests, "API request");
    boolean timer = verdict == EffectVerdict.TIMER_NOT_MEASURED;
    String one = timer ? "periodic reconcile" : "reconcile on no-op triggers";
    String many = timer ? "periodic reconciles" : "reconciles on no-op triggers";
    return switch (verdict) {
      case NO_NOOP_RECONCILES -> "no reconciles on no-op triggers";
      case NO_TIMER_RECONCILES -> "no periodic reconciles";
      case NOOP_WASTE -> "every reconcile on a no-op trigger changed nothing: a ResourceVersion check would save " + saved + ", and lose nothing seen here";
      case TIMER_WASTE -> "every periodic reconcile changed nothing: a longer maxReconciliationInterval would save " + saved + ", and lose nothing seen here";
      case NOOP_REPAIRS ->
          "resync repaired state " + count(effects.changed(), "time") + " in " + count(reconciles, "no-op-triggered reconcile")
              + ": look at why the watch did not carry those changes before removing it";
      case TIMER_REPAIRS -> "the timer repaired state " + count(effects.changed(), "time") + " in " + count(reconciles, "periodic reconcile") + ": keep it";
      case NOOP_NOT_MEASURED, TIMER_NOT_MEASURED -> effects.changedNothing() == 0
          ? "what the " + count(reconciles, one, many) + " changed is not measured: the scrape has no controller_reconcile_effect_total for them (an older agent)"
          : String.format(
              Locale.ROOT, "what %s changed is not measured (no controller_reconcile_effect_total for them); the other %.0f changed nothing",
              countOf(reconciles - effects.changedNothing(), "the", reconciles, one, many), effects.changedNothing());
    };
  }

  private static String verdictText(Verdict verdict, double[] h, Controller fed) {
    return switch (verdict) {
      case NO_NOOPS_SEEN -> "no no-op updates";
      case FILTERS_NOOPS -> "drops every no-op update: it checks already, nothing to save";
      case UNKNOWN -> "hands its no-op updates to no queue the agent sees: what they cost is unknown";
      case ENQUEUES_NOOPS -> {
        String what = h[3] == 0 && h[4] == 0 ? "enqueues every no-op update" : "enqueues " + countOf(h[2], "", h[1], "no-op update");
        if (fed == null || fed.reconciles() == 0) {
          yield what + ": a ResourceVersion check in onUpdate would skip them";
        }
        yield String.format(
            "%s: a ResourceVersion check in onUpdate would have saved %s (%s), %s of %s",
            what, countOf(fed.noopReconciles(), "", fed.reconciles(), "reconcile"), percent(fed.noopReconciles(), fed.reconciles()),
            seconds(fed.noopReconcileSeconds()), seconds(fed.reconcileSeconds()));
      }
    };
  }

  /**
   * A count and its noun, {@code 1 reconcile} or {@code 0 reconciles}: the singular only when the
   * count prints as 1. {@code many} is {@code one} with an s unless given.
   */
  static String count(double n, String one, String many) {
    String number = String.format(Locale.ROOT, "%.0f", n);
    return number + " " + (number.equals("1") ? one : many);
  }

  static String count(double n, String one) {
    return count(n, one, one + "s");
  }

  /**
   * A count out of another, the noun agreeing with the whole: {@code 1 of 2 reconciles},
   * {@code 1 of 1 reconcile}; {@code the} (or {@code its}, or empty) before the whole.
   */
  static String countOf(double part, String the, double whole, String one, String many) {
    return String.format(Locale.ROOT, "%.0f of ", part) + (the.isEmpty() ? "" : the + " ") + count(whole, one, many);
  }

  static String countOf(double part, String the, double whole, String one) {
    return countOf(part, the, whole, one, one + "s");
  }

  static String percent(double part, double whole) {
    return whole == 0 ? "0%" : Math.round(100 * part / whole) + "%";
  }

  static String seconds(double seconds) {
    return seconds >= 10 ? String.format(Locale.ROOT, "%.0f s", seconds) : seconds >= 1 ? String.format(Locale.ROOT, "%.1f s", seconds) : String.format(Locale.ROOT, "%.2f s", seconds);
  }
}
