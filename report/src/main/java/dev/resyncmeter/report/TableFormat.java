package dev.resyncmeter.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The report for a terminal: at most 100 columns, a small bar for each share. */
public final class TableFormat {

  static final int WIDTH = 100;

  private TableFormat() {}

  public static String render(ResyncReport report, String source) {
    return render(report, source, List.of());
  }

  /** The report with {@code notes} under its title (what was read, and how exact it is). */
  static String render(ResyncReport report, String source, List<String> notes) {
    List<String> lines = new ArrayList<>();
    Double window = report.windowSeconds();
    lines.add("resync cost of " + source + report.span());
    notes.forEach(note -> lines.add("  " + note));
    if (report.handlers().isEmpty() && report.controllers().isEmpty()) {
      lines.add("  no handler and no controller counted yet: the agent sees no informer or controller");
    }
    if (!report.handlers().isEmpty()) {
      lines.add("");
      lines.add("Handlers");
    }
    for (ResyncReport.Handler h : report.handlers()) {
      String period =
          h.resyncPeriodSeconds() == null ? "" : h.resyncPeriodSeconds() == 0 ? " (resync off)" : " (resync every " + period(h.resyncPeriodSeconds()) + ")";
      lines.add("  " + h.kind() + " " + h.handler() + period);
      StringBuilder line = new StringBuilder("    updates " + count(h.updates(), window));
      line.append(", no-op ").append(ResyncReport.percent(h.noopUpdates(), h.updates())).append(' ').append(bar(h.noopUpdates(), h.updates()));
      if (h.noopUpdates() > 0) {
        line.append(" (").append(joined(h.noopUpdatesByCause())).append(')');
      }
      if (h.ownWriteUpdates() != null && h.ownWriteUpdates() > 0) {
        line.append(String.format(Locale.ROOT, ", echoes of own writes %.0f", h.ownWriteUpdates()));
      }
      line.append(h.unknown() > 0 ? String.format(Locale.ROOT, ", outcome unknown %.0f", h.unknown()) : String.format(Locale.ROOT, ", enqueued %.0f, dropped %.0f", h.enqueued(), h.dropped()));
      lines.add(line.toString());
      lines.add("    => " + h.verdictText());
    }
    if (!report.controllers().isEmpty()) {
      lines.add("");
      lines.add("Controllers");
    }
    boolean effectsShown = false;
    for (ResyncReport.Controller c : report.controllers()) {
      lines.add("  " + c.controller());
      String periodic =
          c.periodicReconciles() == 0
              ? ""
              : String.format(Locale.ROOT, "; periodic %.0f, %s = %s", c.periodicReconciles(), ResyncReport.seconds(c.periodicReconcileSeconds()),
                  ResyncReport.percent(c.periodicReconcileSeconds(), c.reconcileSeconds()));
      lines.add(
          String.format(
              "    reconciles %s, %s; on no-op triggers %.0f, %s = %s %s%s",
              count(c.reconciles(), window), ResyncReport.seconds(c.reconcileSeconds()), c.noopReconciles(),
              ResyncReport.seconds(c.noopReconcileSeconds()), ResyncReport.percent(c.noopReconcileSeconds(), c.reconcileSeconds()),
              bar(c.noopReconcileSeconds(), c.reconcileSeconds()), periodic));
      ResyncReport.ApiRequests api = c.apiRequests();
      if (api != null) {
        String verbs = api.noopRequests() == 0 ? "" : " (" + joined(nonZero(api.noopRequestsByVerb())) + ")";
        String periodicRequests =
            api.periodicRequests() == 0 ? "" : String.format(Locale.ROOT, "; periodic %.0f = %s", api.periodicRequests(), ResyncReport.percent(api.periodicRequests(), api.requests()));
        lines.add(
            String.format(
                Locale.ROOT, "    api requests %s; on no-op triggers %.0f = %s%s%s", count(api.requests(), window), api.noopRequests(),
                ResyncReport.percent(api.noopRequests(), api.requests()), verbs, periodicRequests));
      }
      StringBuilder triggers = new StringBuilder("    by trigger: ");
      c.byTrigger().forEach((trigger, cost) -> triggers.append(String.format(Locale.ROOT, "%s %.0f (%s), ", trigger, cost.reconciles(), ResyncReport.seconds(cost.seconds()))));
      triggers.setLength(triggers.length() - 2);
      lines.add(triggers.toString());
      // a controller without effect series (an agent that does not count them) gets no effect lines, as without API request series
      if (!c.effectsByTrigger().isEmpty()) {
        if (c.noopVerdict() != ResyncReport.EffectVerdict.NO_NOOP_RECONCILES) {
          lines.add(effects("on no-op triggers", c.noopEffects()));
          lines.add("    => " + c.noopVerdictText());
          effectsShown = true;
        }
        if (c.timerVerdict() != ResyncReport.EffectVerdict.NO_TIMER_RECONCILES) {
          lines.add(effects("of periodic", c.periodicEffects()));
          lines.add("    => " + c.timerVerdictText());
          effectsShown = true;
        }
      }
      // echoes: only for a controller with own_write series, and only when it had some in the window
      ResyncReport.Echoes echoes = c.echoes();
      if (echoes != null && c.echoVerdict() != ResyncReport.EchoVerdict.NO_ECHO_RECONCILES) {
        lines.add(
            String.format(
                Locale.ROOT, "    echoes of its own writes %.0f, %s = %s %s%s", echoes.reconciles(), ResyncReport.seconds(echoes.seconds()),
                ResyncReport.percent(echoes.seconds(), c.reconcileSeconds()), bar(echoes.seconds(), c.reconcileSeconds()),
                echoes.apiRequests() == null ? "" : String.format(Locale.ROOT, "; api requests %.0f", echoes.apiRequests())));
        if (c.effectsByTrigger().containsKey(ResyncReport.OWN_WRITE)) {
          ResyncReport.Effects e = echoes.effects();
          lines.add(
              String.format(
                  Locale.ROOT, "    effect of echoes: changed nothing %.0f (none %.0f, unchanged %.0f), changed again (loop steps) %.0f", e.changedNothing(),
                  e.none(), e.unchanged(), echoes.loopSteps()));
          effectsShown = true;
        }
        lines.add("    => " + c.echoVerdictText());
      }
    }
    if (effectsShown) {
      lines.add("  " + EFFECTS_SEEN);
    }
    if (!report.informers().isEmpty()) {
      lines.add("");
      lines.add("Informers");
    }
    for (ResyncReport.Informer i : report.informers()) {
      double relists = i.relistsByReason().values().stream().mapToDouble(Double::doubleValue).sum();
      lines.add(
          String.format(
              "  %s: resync ticks %.0f, relists %.0f%s, relist notifications lost %.0f", i.kind(), i.resyncs(), relists,
              relists == 0 ? "" : " (" + joined(nonZero(i.relistsByReason())) + ")", i.relistNotificationsLost()));
    }
    StringBuilder out = new StringBuilder();
    for (String line : lines) {
      out.append(wrap(line));
    }
    return out.toString();
  }

  /** Said once under the controllers whenever effects are shown. */
  static final String EFFECTS_SEEN = "effects count writes to the Kubernetes API only: writes to anything else are not seen";

  private static String effects(String which, ResyncReport.Effects e) {
    return String.format(
        Locale.ROOT, "    effect %s: changed nothing %.0f (none %.0f, unchanged %.0f), changed %.0f", which, e.changedNothing(), e.none(), e.unchanged(), e.changed());
  }

  /** A count, and its rate when there is a window. */
  private static String count(double value, Double window) {
    return window == null ? String.format(Locale.ROOT, "%.0f", value) : String.format(Locale.ROOT, "%.0f (%.2f/s)", value, value / window);
  }

  private static String period(double seconds) {
    return seconds == Math.rint(seconds) ? String.format(Locale.ROOT, "%.0f s", seconds) : ResyncReport.seconds(seconds);
  }

  /** Ten cells, one per tenth of the share. */
  static String bar(double part, double whole) {
    int filled = whole <= 0 ? 0 : (int) Math.round(10 * Math.min(1, part / whole));
    return "[" + "#".repeat(filled) + "-".repeat(10 - filled) + "]";
  }

  private static Map<String, Double> nonZero(Map<String, Double> counts) {
    Map<String, Double> kept = new java.util.TreeMap<>(counts);
    kept.values().removeIf(n -> n == 0);
    return kept;
  }

  private static String joined(Map<String, Double> counts) {
    StringBuilder out = new StringBuilder();
    counts.forEach((name, n) -> out.append(String.format(Locale.ROOT, "%s %.0f, ", name, n)));
    return out.length() == 0 ? "" : out.substring(0, out.length() - 2);
  }

  /**
   * A line longer than the width, broken where a reader can pause, the rest indented two columns
   * further: between phrases (after ',' or ';', where no number follows), or, in a phrase longer than
   * the width, between words. A number keeps its unit ({@code 0.54 s}, {@code 20 (1.67/s)}), a count
   * out of another stays whole ({@code 16 of 20 reconciles}), and {@code = 78%} with its bar stays with
   * what it measures.
   */
  static String wrap(String line) {
    StringBuilder out = new StringBuilder();
    String indent = " ".repeat(line.length() - line.stripLeading().length() + 2);
    while (line.length() > WIDTH) {
      int cut = lastBreak(line, indent.length(), true);
      if (cut < 0) {
        cut = lastBreak(line, indent.length(), false);
      }
      if (cut < 0) {
        break;
      }
      out.append(line, 0, cut).append('\n');
      line = indent + line.substring(cut + 1);
    }
    return out.append(line).append('\n').toString();
  }

  /** The last space within the width, after the indent, that ends a phrase, or else that lies between words; -1 if none. */
  private static int lastBreak(String line, int indent, boolean betweenPhrases) {
    for (int i = Math.min(WIDTH, line.length() - 1); i > indent; i--) {
      if (line.charAt(i) != ' ') {
        continue;
      }
      char before = line.charAt(i - 1);
      char after = line.charAt(i + 1);
      boolean phraseEnd = (before == ',' || before == ';') && !Character.isDigit(after);
      boolean outOf = line.startsWith(" of ", i) && i + 4 < line.length() && Character.isDigit(line.charAt(i + 4))
          || line.startsWith(" of ", i - 3) && Character.isDigit(after);
      boolean betweenWords = !Character.isDigit(before) && before != '%' && before != '=' && after != '=' && after != '[' && !outOf;
      if (betweenPhrases ? phraseEnd : betweenWords) {
        return i;
      }
    }
    return -1;
  }
}
