package dev.resyncmeter.report;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * The conditions of {@code report --fail-on}, judged on the computed report, so they work whatever
 * the report was read from. A condition that cannot be checked (nothing to judge it on, or effects
 * not measured) fails too: a gate that passes on what it did not see would let a CI run pass blind.
 */
public final class Gate {

  private Gate() {}

  public enum Kind {
    /** A handler whose verdict is ENQUEUES_NOOPS: it enqueued at least one no-op update. */
    ENQUEUES_NOOPS("enqueues-noops"),
    /** A controller's reconciles on no-op triggers, in percent of all its reconciles, above the threshold. */
    NOOP_SHARE("noop-share"),
    /** A controller's reconciles on no-op triggers that changed nothing, in percent of all its reconciles, above the threshold. */
    NOOP_WASTE("noop-waste"),
    /** A controller with loop steps: reconciles on its own writes (trigger own_write) whose writes changed something again. */
    OWN_WRITE_LOOPS("own-write-loops");

    final String word;

    Kind(String word) {
      this.word = word;
    }
  }

  /** One condition; {@code percentText} is the threshold as the user wrote it (null for enqueues-noops and own-write-loops), for the lines. */
  public record Condition(Kind kind, double percent, String percentText) {
    @Override
    public String toString() {
      return percentText == null ? kind.word : kind.word + ">" + percentText;
    }
  }

  /**
   * {@code enqueues-noops}, {@code own-write-loops}, {@code noop-share>PCT} or {@code noop-waste>PCT},
   * PCT from 0 to 100 with or without decimals and '%'.
   */
  static Condition condition(String text) throws UsageException {
    String t = text.strip();
    for (Kind kind : List.of(Kind.ENQUEUES_NOOPS, Kind.OWN_WRITE_LOOPS)) {
      if (t.equals(kind.word)) {
        return new Condition(kind, 0, null);
      }
    }
    for (Kind kind : List.of(Kind.NOOP_SHARE, Kind.NOOP_WASTE)) {
      if (!t.startsWith(kind.word)) {
        continue;
      }
      if (!t.startsWith(kind.word + ">")) {
        // a bare noop-share is most often 'noop-share>20' unquoted: the shell took '>20' as a redirection
        throw new UsageException(
            "--fail-on takes '" + kind.word + ">PCT' (quoted: the shell reads > as a redirection), not '" + text + "'");
      }
      String percent = t.substring(kind.word.length() + 1).strip();
      percent = percent.endsWith("%") ? percent.substring(0, percent.length() - 1) : percent;
      // a plain decimal only: Double.parseDouble would also take NaN, Infinity, 1e2 and 0x1p3
      if (!percent.matches("[0-9]+(\\.[0-9]+)?") || Double.parseDouble(percent) > 100) {
        throw new UsageException("--fail-on " + kind.word + ">PCT takes a percentage from 0 to 100, not '" + text + "'");
      }
      return new Condition(kind, Double.parseDouble(percent), percent);
    }
    throw new UsageException("--fail-on takes enqueues-noops, own-write-loops, 'noop-share>PCT' or 'noop-waste>PCT', not '" + text + "'");
  }

  /** One line for each handler or controller that fails a condition, in the order of the conditions; none when all pass. */
  public static List<String> failures(ResyncReport report, Collection<Condition> conditions) {
    List<String> lines = new ArrayList<>();
    for (Condition condition : conditions) {
      switch (condition.kind()) {
        case ENQUEUES_NOOPS -> enqueuesNoops(report, lines);
        case NOOP_SHARE -> noopShare(report, condition, lines);
        case NOOP_WASTE -> noopWaste(report, condition, lines);
        case OWN_WRITE_LOOPS -> ownWriteLoops(report, condition, lines);
      }
    }
    return lines;
  }

  private static void enqueuesNoops(ResyncReport report, List<String> lines) {
    if (report.handlers().isEmpty()) {
      lines.add("cannot check enqueues-noops: the report has no handler (the agent counted no informer's handlers)");
    }
    for (ResyncReport.Handler h : report.handlers()) {
      String handler = "handler " + h.kind() + " " + h.handler();
      if (h.verdict() == ResyncReport.Verdict.ENQUEUES_NOOPS) {
        lines.add(String.format(Locale.ROOT, "%s enqueues no-op updates (%.0f of %.0f)", handler, h.enqueued(), h.noopUpdates()));
      } else if (h.verdict() == ResyncReport.Verdict.UNKNOWN) {
        lines.add("cannot check enqueues-noops for " + handler + ": it hands its " + ResyncReport.count(h.unknown(), "no-op update") + " to no queue the agent sees");
      }
    }
  }

  private static void noopShare(ResyncReport report, Condition condition, List<String> lines) {
    if (report.controllers().isEmpty()) {
      lines.add(noController(condition));
    }
    for (ResyncReport.Controller c : report.controllers()) {
      if (above(c.noopReconciles(), c.reconciles(), condition)) {
        lines.add(String.format(
            Locale.ROOT, "controller %s reconciled on no-op triggers %s (%s), above %s%%", c.controller(),
            ResyncReport.countOf(c.noopReconciles(), "", c.reconciles(), "time"), percentAbove(c.noopReconciles(), c.reconciles(), condition.percent()), condition.percentText()));
      }
    }
  }

  /**
   * Waste is counted only where the effect is known to be nothing, so a measured waste above the
   * threshold fails whatever the rest did; below it, reconciles whose effect is not measured could
   * put it above, and the condition cannot be checked.
   */
  private static void noopWaste(ResyncReport report, Condition condition, List<String> lines) {
    if (report.controllers().isEmpty()) {
      lines.add(noController(condition));
    }
    for (ResyncReport.Controller c : report.controllers()) {
      ResyncReport.Effects effects = c.noopEffects();
      double waste = effects.changedNothing();
      double notMeasured = c.noopReconciles() - waste - effects.changed();
      if (above(waste, c.reconciles(), condition)) {
        lines.add(String.format(
            Locale.ROOT, "controller %s reconciled on no-op triggers and changed nothing %s (%s), above %s%%", c.controller(),
            ResyncReport.countOf(waste, "", c.reconciles(), "time"), percentAbove(waste, c.reconciles(), condition.percent()), condition.percentText()));
      } else if (notMeasured > 0) {
        boolean none = notMeasured == c.noopReconciles();
        String one = "reconcile on no-op triggers";
        String many = "reconciles on no-op triggers";
        String which = none ? "its " + ResyncReport.count(c.noopReconciles(), one, many) : ResyncReport.countOf(notMeasured, "its", c.noopReconciles(), one, many);
        lines.add(String.format(
            Locale.ROOT, "cannot check %s for controller %s: what %s changed is not measured, the scrape has no controller_reconcile_effect_total for them%s",
            condition, c.controller(), which, none ? " (an older agent)" : ""));
      }
    }
  }

  /**
   * A controller fails with one loop step, whatever its other echoes did. Echoes whose effect the
   * scrape does not hold may be loop steps, so with none counted the condition cannot be checked. A
   * controller without own_write series had no echo the agent saw, and passes.
   */
  private static void ownWriteLoops(ResyncReport report, Condition condition, List<String> lines) {
    if (report.controllers().isEmpty()) {
      lines.add(noController(condition));
    }
    for (ResyncReport.Controller c : report.controllers()) {
      ResyncReport.Echoes echoes = c.echoes();
      if (echoes == null) {
        continue;
      }
      if (c.echoVerdict() == ResyncReport.EchoVerdict.ECHO_LOOP) {
        lines.add(
            "controller " + c.controller() + " loops on its own writes: " + ResyncReport.countOf(echoes.loopSteps(), "its", echoes.reconciles(), "reconcile")
                + " on its own writes changed something again");
      } else if (c.echoVerdict() == ResyncReport.EchoVerdict.ECHO_NOT_MEASURED) {
        double notMeasured = echoes.reconciles() - echoes.effects().changedNothing();
        String which = notMeasured == echoes.reconciles()
            ? "its " + ResyncReport.count(echoes.reconciles(), "reconcile")
            : ResyncReport.countOf(notMeasured, "its", echoes.reconciles(), "reconcile");
        lines.add(
            "cannot check " + condition + " for controller " + c.controller() + ": what " + which
                + " on its own writes changed is not measured, the scrape has no controller_reconcile_effect_total for them");
      }
    }
  }

  private static String noController(Condition condition) {
    return "cannot check " + condition + ": the report has no controller (the agent counted no reconcile)";
  }

  /** {@code part} is more than the threshold's percent of {@code whole}; compared without a division, so 16 of 20 is not above 80. */
  private static boolean above(double part, double whole, Condition condition) {
    return 100 * part > condition.percent() * whole;
  }

  /** The share with the fewest decimals that still show it above the threshold: 34%, but 33.33% against 33.3. */
  static String percentAbove(double part, double whole, double threshold) {
    double share = 100 * part / whole;
    String text = "";
    for (int decimals = 0; decimals <= 6; decimals++) {
      text = String.format(Locale.ROOT, "%." + decimals + "f", share);
      if (Double.parseDouble(text) > threshold) {
        break;
      }
    }
    return text + "%";
  }
}
