package dev.resyncmeter.examples.scenario;

import dev.resyncmeter.examples.truth.Truth;
import io.kubernetes.client.openapi.models.V1ConfigMap;

/** What the client-java scenarios' handlers observed, under the series each count must match. */
final class GroundTruth extends Truth {

  /** One {@code onUpdate} as the application sees it, with the outcome its handler chose. */
  void handlerUpdate(String handler, V1ConfigMap oldObject, V1ConfigMap newObject, String outcome) {
    String cause = ResyncScenario.cause(oldObject, newObject);
    boolean unchanged = ResyncScenario.unchanged(oldObject, newObject);
    increment(series("informer_notifications_total", "kind", ResyncScenario.KIND, "handler", handler, "type", "update"));
    increment(
        series(
            "informer_updates_total", "kind", ResyncScenario.KIND, "handler", handler, "cause", cause, "resource_version",
            unchanged ? "unchanged" : "changed"));
    if (unchanged) {
      increment(series("informer_noop_updates_total", "kind", ResyncScenario.KIND, "handler", handler, "cause", cause, "outcome", outcome));
    }
  }

  /** One {@code onAdd} or {@code onDelete} ({@code type} add or delete). */
  void handlerCall(String handler, String type) {
    increment(series("informer_notifications_total", "kind", ResyncScenario.KIND, "handler", handler, "type", type));
  }
}
