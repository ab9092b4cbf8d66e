package dev.resyncmeter.agent.fabric8;

import dev.resyncmeter.agent.runtime.ClassLabels;
import dev.resyncmeter.agent.runtime.IdentityWeakMap;
import dev.resyncmeter.agent.runtime.LateStart;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The {@code handler} labels of fabric8 handlers. A framework that makes its own handlers (JOSDK's
 * event sources) names them after its controller and says whether each one hands its work to a
 * queue the agent observes; any other handler is named after its class, and where its work goes is
 * unknown.
 */
public final class Fabric8Handlers {

  private static final IdentityWeakMap<Named> NAMED = new IdentityWeakMap<>();

  private Fabric8Handlers() {}

  /** A framework made {@code handler} for the controller {@code label}. */
  public static void named(Object handler, String label, boolean handsWorkToObservedQueue) {
    NAMED.put(handler, new Named(label, handsWorkToObservedQueue));
  }

  /**
   * After an attach, how a framework names a handler it made before (its constructor advice did not
   * run then); null when it did not make it.
   */
  public interface LateNames {
    String controllerOf(Object handler) throws ReflectiveOperationException;
  }

  private static final List<LateNames> LATE_NAMES = new CopyOnWriteArrayList<>();

  /** A framework unit says how to name its handlers made before an attach. */
  public static void lateNames(LateNames names) {
    // once per framework: its weaving may be made more than once
    for (LateNames known : LATE_NAMES) {
      if (known.getClass() == names.getClass()) {
        return;
      }
    }
    LATE_NAMES.add(names);
  }

  static String label(Object handler) throws ReflectiveOperationException {
    Named named = NAMED.get(handler);
    if (named == null && LateStart.attached()) {
      for (LateNames names : LATE_NAMES) {
        String controller = names.controllerOf(handler);
        if (controller != null) {
          named(handler, controller, true);
          return controller;
        }
      }
    }
    return named != null ? named.label : ClassLabels.of(handler.getClass());
  }

  /** Whether a call of {@code handler} that added no work really dropped its notification. */
  static boolean handsWorkToObservedQueue(Object handler) {
    Named named = NAMED.get(handler);
    return named != null && named.handsWorkToObservedQueue;
  }

  private record Named(String label, boolean handsWorkToObservedQueue) {}
}
