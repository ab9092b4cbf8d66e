package dev.resyncmeter.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The report as GitHub-flavoured Markdown, for a pull request comment or a wiki page: a heading, the
 * handlers, controllers, the controllers' echoes of their own writes (when there are any) and
 * informers as tables, each verdict in its row. Same numbers as the table.
 */
public final class MarkdownFormat {

  private MarkdownFormat() {}

  public static String render(ResyncReport report, String source) {
    return render(report, source, List.of());
  }

  /** The report with {@code notes} under its heading. */
  static String render(ResyncReport report, String source, List<String> notes) {
    List<String> lines = new ArrayList<>();
    lines.add("### Resync cost of " + cell(source) + report.span());
    lines.add("");
    notes.forEach(note -> lines.add(cell(note.substring(0, 1).toUpperCase(Locale.ROOT) + note.substring(1)) + "."));
    if (!notes.isEmpty()) {
      lines.add("");
    }
    if (report.handlers().isEmpty() && report.controllers().isEmpty()) {
      lines.add("No handler and no controller counted yet: the agent sees no informer or controller.");
      lines.add("");
    }
    section(lines, "Handlers",
        "| Kind | Handler | Resync period | Updates | No-op updates | Enqueued | Dropped | Unknown | Verdict |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
        report.handlers(), MarkdownFormat::handler);
    section(lines, "Controllers",
        "| Controller | Reconciles | Time | On no-op triggers | Their time | Periodic | API requests (on no-op triggers) | Effect of the no-op-triggered | Verdict |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|",
        report.controllers(), MarkdownFormat::controller);
    section(lines, "Echoes of their own writes",
        "| Controller | Echo reconciles | Their time | Their API requests | Loop steps (changed again) | Verdict |",
        "|---|---:|---:|---:|---:|---|",
        report.controllers().stream().filter(c -> c.echoes() != null && c.echoVerdict() != ResyncReport.EchoVerdict.NO_ECHO_RECONCILES).toList(), MarkdownFormat::echoes);
    section(lines, "Informers",
        "| Kind | Resync ticks | Relists | Relist notifications lost |",
        "|---|---:|---:|---:|",
        report.informers(), MarkdownFormat::informer);
    StringBuilder out = new StringBuilder();
    lines.forEach(line -> out.append(line).append('\n'));
    return out.toString();
  }

  /** A bold title and a table with a row an item, then a blank line; nothing without items. */
  private static <T> void section(List<String> lines, String title, String header, String alignment, List<T> items, Function<T, String> row) {
    if (items.isEmpty()) {
      return;
    }
    lines.add("**" + title + "**");
    lines.add("");
    lines.add(header);
    lines.add(alignment);
    items.forEach(item -> lines.add(row.apply(item)));
    lines.add("");
  }

  private static String handler(ResyncReport.Handler h) {
    String period = h.resyncPeriodSeconds() == null ? "" : h.resyncPeriodSeconds() == 0 ? "off" : ResyncReport.seconds(h.resyncPeriodSeconds());
    return row(
        h.kind(), h.handler(), period, count(h.updates()),
        count(h.noopUpdates()) + " (" + ResyncReport.percent(h.noopUpdates(), h.updates()) + ")" + causes(h.noopUpdatesByCause()),
        count(h.enqueued()), count(h.dropped()), count(h.unknown()), h.verdictText());
  }

  private static String controller(ResyncReport.Controller c) {
    ResyncReport.ApiRequests api = c.apiRequests();
    String requests = api == null ? "" : count(api.requests()) + " (" + count(api.noopRequests()) + ")";
    String effect = c.effectsByTrigger().isEmpty() || c.noopVerdict() == ResyncReport.EffectVerdict.NO_NOOP_RECONCILES
        ? ""
        : String.format(Locale.ROOT, "changed nothing %.0f, changed %.0f", c.noopEffects().changedNothing(), c.noopEffects().changed());
    String verdict = c.effectsByTrigger().isEmpty() || c.noopVerdict() == ResyncReport.EffectVerdict.NO_NOOP_RECONCILES ? "" : c.noopVerdictText();
    if (!c.effectsByTrigger().isEmpty() && c.timerVerdict() != ResyncReport.EffectVerdict.NO_TIMER_RECONCILES) {
      verdict = (verdict.isEmpty() ? "" : verdict + "; ") + c.timerVerdictText();
    }
    return row(
        c.controller(), count(c.reconciles()), ResyncReport.seconds(c.reconcileSeconds()),
        count(c.noopReconciles()) + " (" + ResyncReport.percent(c.noopReconciles(), c.reconciles()) + ")",
        ResyncReport.seconds(c.noopReconcileSeconds()) + " (" + ResyncReport.percent(c.noopReconcileSeconds(), c.reconcileSeconds()) + ")",
        count(c.periodicReconciles()), requests, effect, verdict);
  }

  private static String echoes(ResyncReport.Controller c) {
    ResyncReport.Echoes e = c.echoes();
    boolean measured = c.effectsByTrigger().containsKey(ResyncReport.OWN_WRITE);
    return row(
        c.controller(), count(e.reconciles()),
        ResyncReport.seconds(e.seconds()) + " (" + ResyncReport.percent(e.seconds(), c.reconcileSeconds()) + ")",
        e.apiRequests() == null ? "" : count(e.apiRequests()), measured ? count(e.loopSteps()) : "", c.echoVerdictText());
  }

  private static String informer(ResyncReport.Informer i) {
    double relists = i.relistsByReason().values().stream().mapToDouble(Double::doubleValue).sum();
    return row(i.kind(), count(i.resyncs()), count(relists) + causes(i.relistsByReason()), count(i.relistNotificationsLost()));
  }

  private static String row(String... cells) {
    StringBuilder out = new StringBuilder("|");
    for (String cell : cells) {
      out.append(' ').append(cell(cell)).append(" |");
    }
    return out.toString();
  }

  /** Text safe inside a table cell: a pipe would end the cell, a line break the row. */
  static String cell(String text) {
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ");
  }

  private static String count(double value) {
    return String.format(Locale.ROOT, "%.0f", value);
  }

  /** {@code : resync 16, relist 4}, the non-zero ones. */
  private static String causes(Map<String, Double> counts) {
    StringBuilder out = new StringBuilder();
    counts.forEach((name, n) -> {
      if (n != 0) {
        out.append(out.length() == 0 ? ": " : ", ").append(name).append(' ').append(count(n));
      }
    });
    return out.toString();
  }
}
