package dev.resyncmeter.report;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The report as JSON, under stable field names: {@code window_seconds} (null for one scrape),
 * {@code handlers}, {@code controllers} (with {@code api_requests} and the fields after it only when
 * the scrape counts the controller's API requests; {@code effects} by trigger, empty when the scrape
 * has no effect series of the controller, and the two effect verdicts; {@code echoes} with
 * {@code echo_verdict} only when the scrape has series of the controller with the trigger
 * {@code own_write}), {@code informers} ({@code own_write_updates} on a handler only when the scrape
 * counts them).
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
    out.append(array("handlers", report.handlers(), JsonFormat::handler)).append(",\n");
    out.append(array("controllers", report.controllers(), JsonFormat::controller)).append(",\n");
    out.append(array("informers", report.informers(), JsonFormat::informer)).append('\n');
    return out.append("}\n").toString();
  }

  /** A field of the report whose value is an array of objects, one a line; an empty one stays on the field's line. */
  private static <T> String array(String name, List<T> items, Function<T, String> members) {
    StringBuilder out = new StringBuilder("  ").append(string(name)).append(": [");
    String separator = "\n";
    for (T item : items) {
      out.append(separator).append("    {").append(members.apply(item)).append('}');
      separator = ",\n";
    }
    return out.append(items.isEmpty() ? "]" : "\n  ]").toString();
  }

  private static String handler(ResyncReport.Handler h) {
    return "\"kind\": " + string(h.kind())
        + ", \"handler\": " + string(h.handler())
        + ", \"updates\": " + number(h.updates())
        + ", \"noop_updates\": " + number(h.noopUpdates())
        + ", \"noop_updates_by_cause\": " + object(h.noopUpdatesByCause(), JsonFormat::number)
        + ", \"enqueued\": " + number(h.enqueued())
        + ", \"dropped\": " + number(h.dropped())
        + ", \"unknown\": " + number(h.unknown())
        + ", \"resync_period_seconds\": " + (h.resyncPeriodSeconds() == null ? "null" : number(h.resyncPeriodSeconds()))
        + (h.ownWriteUpdates() == null ? "" : ", \"own_write_updates\": " + number(h.ownWriteUpdates()))
        + ", \"verdict\": " + string(h.verdict().jsonName())
        + ", \"verdict_text\": " + string(h.verdictText());
  }

  private static String controller(ResyncReport.Controller c) {
    StringBuilder out = new StringBuilder()
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
          .append(", \"noop_api_requests_by_verb\": ").append(object(c.apiRequests().noopRequestsByVerb(), JsonFormat::number))
          .append(", \"periodic_api_requests\": ").append(number(c.apiRequests().periodicRequests()));
    }
    return out
        .append(", \"by_trigger\": ").append(object(c.byTrigger(), cost ->
            "{\"reconciles\": " + number(cost.reconciles()) + ", \"seconds\": " + number(cost.seconds()) + "}"))
        .append(", \"effects\": ").append(object(c.effectsByTrigger(), effects ->
            "{\"none\": " + number(effects.none()) + ", \"unchanged\": " + number(effects.unchanged()) + ", \"changed\": " + number(effects.changed()) + "}"))
        .append(", \"noop_verdict\": ").append(string(c.noopVerdict().jsonName()))
        .append(", \"noop_verdict_text\": ").append(string(c.noopVerdictText()))
        .append(", \"timer_verdict\": ").append(string(c.timerVerdict().jsonName()))
        .append(", \"timer_verdict_text\": ").append(string(c.timerVerdictText()))
        .append(echoes(c))
        .toString();
  }

  /** The controller's echoes and their verdict, after the other verdicts; nothing without own_write series. */
  private static String echoes(ResyncReport.Controller c) {
    ResyncReport.Echoes e = c.echoes();
    if (e == null) {
      return "";
    }
    return ", \"echoes\": {\"reconciles\": " + number(e.reconciles())
        + ", \"seconds\": " + number(e.seconds())
        + ", \"api_requests\": " + (e.apiRequests() == null ? "null" : number(e.apiRequests()))
        + ", \"loop_steps\": " + number(e.loopSteps()) + "}"
        + ", \"echo_verdict\": " + string(c.echoVerdict().jsonName())
        + ", \"echo_verdict_text\": " + string(c.echoVerdictText());
  }

  private static String informer(ResyncReport.Informer i) {
    return "\"kind\": " + string(i.kind())
        + ", \"resyncs\": " + number(i.resyncs())
        + ", \"relists_by_reason\": " + object(i.relistsByReason(), JsonFormat::number)
        + ", \"relist_notifications_lost\": " + number(i.relistNotificationsLost());
  }

  /** An object on one line: each key, and its value as {@code value} writes it. */
  private static <T> String object(Map<String, T> members, Function<T, String> value) {
    StringBuilder out = new StringBuilder("{");
    String separator = "";
    for (Map.Entry<String, T> e : members.entrySet()) {
      out.append(separator).append(string(e.getKey())).append(": ").append(value.apply(e.getValue()));
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
