package dev.resyncmeter.examples.truth;

import static dev.resyncmeter.examples.truth.Truth.series;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What the application itself knows of its echoes, kept apart from the agent: each write it sent and
 * the resourceVersion it was answered with (by object uid), each handler update call and the new
 * object's resourceVersion, each work item a handler added, and each reconcile with the adds it took.
 *
 * <p>An update call is an echo when its new resourceVersion is one a write of this process was
 * answered with, for the same uid. That is decided only when the counts are rendered, after the run:
 * a watch event may reach a handler before the writer has read its answer (fabric8's mock server sends
 * it first), so no handler can tell at the time. The scenarios write each object again only after the
 * echo of their last write to it came (or a write changed nothing), so every answer is the object's
 * last one when its echo is handled, as the agent keeps it.
 *
 * <p>A reconcile's trigger is the strongest of the adds it took ({@link #TRIGGER_STRENGTH}): adds that
 * came while its item waited are merged into it; one that came while it ran waits for the next.
 */
public final class EchoTruth {

  /** The triggers, strongest first: what a work item's merged adds count as. */
  public static final List<String> TRIGGER_STRENGTH =
      List.of("change", "own_write", "unknown", "other", "requeue", "periodic", "watch_noop", "relist_noop", "resync_noop");

  /** One handler update call: the handler, the kind, the object's uid and the two resourceVersions. */
  public record Update(String handler, String kind, String uid, String oldVersion, String newVersion) {}

  /** One work item added by a handler: from an add ({@code update} null) or an update call. */
  public record Add(String controller, Update update) {}

  /** One reconcile, with the adds it took, its result, effect and API requests by verb. */
  public record Reconcile(String controller, String key, List<Add> adds, String result, String effect, List<String> verbs) {}

  private final Map<String, Set<String>> answered = new ConcurrentHashMap<>();
  private final List<String> writes = new CopyOnWriteArrayList<>();
  private final List<Update> updates = new CopyOnWriteArrayList<>();
  private final List<Add> adds = new CopyOnWriteArrayList<>();
  private final Map<String, List<Add>> waiting = new ConcurrentHashMap<>();
  private final List<Reconcile> reconciles = new CopyOnWriteArrayList<>();

  /**
   * A write of this process to object {@code uid} that was answered with {@code version}: {@code what}
   * says which (update, merge patch, ...) for the run's transcript. A write that changed nothing is
   * answered with the version it had: no event carries it again, so recording it changes nothing.
   */
  public void answered(String what, String name, String uid, String sentVersion, String version) {
    answered.computeIfAbsent(uid, u -> ConcurrentHashMap.newKeySet()).add(version);
    writes.add("WRITE " + what + " " + name + ": " + (version.equals(sentVersion) ? "same version" : "new version"));
  }

  /** A handler's update call, as it saw it. */
  public Update updated(String handler, String kind, String uid, String oldVersion, String newVersion) {
    Update update = new Update(handler, kind, uid, oldVersion, newVersion);
    updates.add(update);
    return update;
  }

  /** A work item {@code key} added to {@code controller}'s queue, by an add ({@code update} null) or an update call. */
  public synchronized void enqueued(String controller, String key, Update update) {
    Add add = new Add(controller, update);
    adds.add(add);
    waiting.computeIfAbsent(controller + "/" + key, k -> new CopyOnWriteArrayList<>()).add(add);
  }

  /** A reconcile of {@code key} starts: it takes every add that waited for it. */
  public synchronized List<Add> take(String controller, String key) {
    List<Add> taken = waiting.remove(controller + "/" + key);
    return taken == null ? List.of() : new ArrayList<>(taken);
  }

  /** A reconcile ended. */
  public void reconciled(String controller, String key, List<Add> taken, String result, String effect, List<String> verbs) {
    reconciles.add(new Reconcile(controller, key, taken, result, effect, List.copyOf(verbs)));
  }

  /** Whether an update call was an echo: its new version is one of this process's answers for the object. */
  public boolean echo(Update update) {
    Set<String> versions = answered.get(update.uid());
    return versions != null && versions.contains(update.newVersion()) && !update.newVersion().equals(update.oldVersion());
  }

  /** What an add counts as: an add call is a change; an update call an echo, a change or a no-op. */
  public String trigger(Add add) {
    Update update = add.update();
    if (update == null) {
      return "change";
    }
    if (echo(update)) {
      return "own_write";
    }
    return update.newVersion().equals(update.oldVersion()) ? "resync_noop" : "change";
  }

  /** The strongest trigger of a reconcile's adds ({@code requeue} when it took none). */
  public String trigger(Reconcile reconcile) {
    return reconcile.adds().stream().map(this::trigger).min((a, b) -> TRIGGER_STRENGTH.indexOf(a) - TRIGGER_STRENGTH.indexOf(b)).orElse("requeue");
  }

  /**
   * Counts everything under the series the agent must export: the handlers' update calls that were
   * echoes ({@code informer_own_write_updates_total}), their update calls, and, when {@code queues},
   * the adds by trigger and the reconciles by trigger, result, effect and API request verb.
   */
  public void countInto(Truth truth, boolean queues) {
    for (Update update : updates) {
      truth.increment(series("informer_notifications_total", "kind", update.kind(), "handler", update.handler(), "type", "update"));
      if (echo(update)) {
        truth.increment(series("informer_own_write_updates_total", "kind", update.kind(), "handler", update.handler()));
      }
    }
    for (Reconcile reconcile : reconciles) {
      String trigger = trigger(reconcile);
      truth.increment(series("controller_reconcile_total", "controller", reconcile.controller(), "trigger", trigger, "result", reconcile.result()));
      truth.increment(series("controller_reconcile_duration_seconds_count", "controller", reconcile.controller(), "trigger", trigger));
      truth.increment(series("controller_reconcile_effect_total", "controller", reconcile.controller(), "trigger", trigger, "effect", reconcile.effect()));
      for (String verb : reconcile.verbs()) {
        truth.increment(series("controller_reconcile_api_requests_total", "controller", reconcile.controller(), "trigger", trigger, "verb", verb));
      }
    }
    if (queues) {
      for (Add add : adds) {
        truth.increment(series("workqueue_trigger_adds_total", "name", add.controller(), "trigger", trigger(add)));
      }
    }
  }

  /** Reconciles on {@code own_write} whose effect is {@code changed}, by controller: the loop's steps. */
  public Map<String, Long> loopSteps() {
    Map<String, Long> steps = new TreeMap<>();
    for (Reconcile reconcile : reconciles) {
      if (trigger(reconcile).equals("own_write") && reconcile.effect().equals("changed")) {
        steps.merge(reconcile.controller(), 1L, Long::sum);
      }
    }
    return steps;
  }

  /**
   * The run's transcript: what each kind of write got ({@code WRITE ...}, each once), each update call
   * and whether it was an echo ({@code UPDATE handler old -> new: echo|not an echo}), in order, each
   * reconcile with the adds it took and its trigger and effect ({@code RECONCILE ...}), and the loop
   * steps by controller ({@code LOOP STEPS controller n}).
   */
  public List<String> transcript() {
    List<String> lines = new ArrayList<>(new java.util.TreeSet<>(writes));
    for (Update update : updates) {
      lines.add("UPDATE " + update.handler() + " " + update.oldVersion() + " -> " + update.newVersion() + ": " + (echo(update) ? "echo" : "not an echo"));
    }
    for (Reconcile reconcile : reconciles) {
      List<String> adds = new ArrayList<>();
      for (Add add : reconcile.adds()) {
        adds.add(add.update() == null ? "add" : add.update().newVersion() + " " + trigger(add));
      }
      lines.add("RECONCILE " + reconcile.controller() + " " + reconcile.key() + " after " + String.join(", ", adds) + ": " + trigger(reconcile) + ", " + reconcile.effect());
    }
    loopSteps().forEach((controller, steps) -> lines.add("LOOP STEPS " + controller + " " + steps));
    return lines;
  }

  /** Reconciles of {@code controller} so far. */
  public long reconciles(String controller) {
    return reconciles.stream().filter(r -> r.controller().equals(controller)).count();
  }

  /** Update calls seen so far by {@code handler}. */
  public long updates(String handler) {
    return updates.stream().filter(u -> u.handler().equals(handler)).count();
  }

  /** Whether some handler's update call carried {@code version} of {@code uid}. */
  public boolean seen(String uid, String version) {
    return updates.stream().anyMatch(u -> u.uid().equals(uid) && u.newVersion().equals(version));
  }

  /** Work items added but not yet taken by a reconcile. */
  public int waitingAdds() {
    return waiting.values().stream().mapToInt(List::size).sum();
  }
}
