package dev.resyncmeter.report;

import java.util.Map;

/**
 * The report as JSON, under stable field names: {@code window_seconds} (null for one scrape),
 * {@code handlers}, {@code controllers} (with {@code api_requests} and the fields after it only when
 * the scrape counts the controller's API requests; {@code effects} by trigger, empty when the scrape
 * has no effect series of the controller, and the two effect verdicts), {@code informers}.
 */
public final class JsonFormat {

  private JsonFormat() {}

  public static String render(ResyncReport report, String source) {
    return render(report, source, Map.of());
  }

  /** The report with more fields after {@code source}: names and their values as JSON text, in their order. */
  static String render(ResyncReport report, String source, Map<String, String> fields) {
    StringBuilder out = new StringBuilder("{\n");
    out.append("  \"source\": ").append(string(source)).append(",\n");
    fields.forEach((name, json) -> out.append("  ").append(string(name)).append(": ").append(json).append(",\n"));
    out.append("  \"window_seconds\": ").append(report.windowSeconds() == null ? "null" : number(report.windowSeconds())).append(",\n");
    out.append("  \"handlers\": [");
    String separator = "\n";
    for (ResyncReport.Handler h : report.handlers()) {
      out.append(separator).append("    {")
          .append("\"kind\": ").append(string(h.kind()))
          .append(", \"handler\": ").append(string(h.handler()))
          .append(", \"updates\": ").append(number(h.updates()))
          .append(", \"noop_updates\": ").append(number(h.noopUpdates()))
          .append(", \"noop_updates_by_cause\": ").append(object(h.noopUpdatesByCause()))
          .append(", \"enqueued\": ").append(number(h.enqueued()))
          .append(", \"dropped\": ").append(number(h.dropped()))
          .append(", \"unknown\": ").append(number(h.unknown()))
          .append(", \"resync_period_seconds\": ").append(h.resyncPeriodSeconds() == null ? "null" : number(h.resyncPeriodSeconds()))
          .append(", \"verdict\": ").append(string(h.verdict().jsonName()))
          .append(", \"verdict_text\": ").append(string(h.verdictText()))
          .append('}');
      separator = ",\n";
    }
    out.append(report.handlers().isEmpty() ? "],\n" : "\n  ],\n");
    out.append("  \"controllers\": [");
    separator = "\n";
    for (ResyncReport.Controller c : report.controllers()) {
      out.append(separator).append("    {")
          .append("\"controller\": ").append(string(c.controller()))
          .append(", \"reconciles\": ").append(number(c.reconciles()))
          .append(", \"reconcile_seconds\": ").append(number(c.reconcileSeconds()))
          .append(", \"noop_reconciles\": ").append(number(c.noopReconciles()))
          .append(", \"noop_reconcile_seconds\": ").append(number(c.noopReconcileSeconds()))
          .append(", \"periodic_reconciles\": ").append(number(c.periodicReconciles()))
          .append(", \"periodic_reconcile_seconds\": ").append(number(c.periodicReconcileSeconds()));
      if (c.apiRequests() != null) {
        out.append(", \"api_requests\": ").append(number(c.apiRequests().requests()))
            .append(", \"noop_api_requests\": ").append(number(c.apiRequests().noopRequests()))
            .append(", \"noop_api_requests_by_verb\": ").append(object(c.apiRequests().noopRequestsByVerb()))
            .append(", \"periodic_api_requests\": ").append(number(c.apiRequests().periodicRequests()));
      }
      out.append(", \"by_trigger\": {");
      String inner = "";
      for (Map.Entry<String, ResyncReport.TriggerCost> e : c.byTrigger().entrySet()) {
        out.append(inner).append(string(e.getKey())).append(": {\"reconciles\": ").append(number(e.getValue().reconciles()))
            .append(", \"seconds\": ").append(number(e.getValue().seconds())).append('}');
        inner = ", ";
      }
      out.append("}, \"effects\": {");
      inner = "";
      for (Map.Entry<String, ResyncReport.Effects> e : c.effectsByTrigger().entrySet()) {
        out.append(inner).append(string(e.getKey())).append(": {\"none\": ").append(number(e.getValue().none()))
            .append(", \"unchanged\": ").append(number(e.getValue().unchanged()))
            .append(", \"changed\": ").append(number(e.getValue().changed())).append('}');
        inner = ", ";
      }
      out.append('}')
          .append(", \"noop_verdict\": ").append(string(c.noopVerdict().jsonName()))
          .append(", \"noop_verdict_text\": ").append(string(c.noopVerdictText()))
          .append(", \"timer_verdict\": ").append(string(c.timerVerdict().jsonName()))
          .append(", \"timer_verdict_text\": ").append(string(c.timerVerdictText()))
          .append('}');
      separator = ",\n";
    }
    out.append(report.controllers().isEmpty() ? "],\n" : "\n  ],\n");
    out.append("  \"informers\": [");
    separator = "\n";
    for (ResyncReport.Informer i : report.informers()) {
      out.append(separator).append("    {")
          .append("\"kind\": ").append(string(i.kind()))
          .append(", \"resyncs\": ").append(number(i.resyncs()))
          .append(", \"relists_by_reason\": ").append(object(i.relistsByReason()))
          .append(", \"relist_notifications_lost\": ").append(number(i.relistNotificationsLost()))
          .append('}');
      separator = ",\n";
    }
    out.append(report.informers().isEmpty() ? "]\n" : "\n  ]\n");
    return out.append("}\n").toString();
  }

  private static String object(Map<String, Double> counts) {
    StringBuilder out = new StringBuilder("{");
    String separator = "";
    for (Map.Entry<String, Double> e : counts.entrySet()) {
      out.append(separator).append(string(e.getKey())).append(": ").append(number(e.getValue()));
      separator = ", ";
    }
    return out.append('}').toString();
  }

  /** Whole numbers without a fraction, others with at most six decimals. */
  static String number(double value) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      return "null";
    }
    if (value == Math.rint(value) && Math.abs(value) < 1e15) {
      return Long.toString((long) value);
    }
    String text = String.format(java.util.Locale.ROOT, "%.6f", value).replaceAll("0+$", "");
    return text.endsWith(".") ? text + "0" : text;
  }

  static String string(String value) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : value.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
