package dev.resyncmeter.examples.fabric8;

import static dev.resyncmeter.examples.truth.Truth.series;

import dev.resyncmeter.examples.truth.Truth;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The fabric8 end-to-end run: {@link Fabric8Sample} against the in-process mock server, through a
 * relist, watch events and resyncs, printing the application's own counts.
 *
 * <p>{@code fabric8-scenario [--kind ConfigMap|Secret]}: {@value #OBJECTS} objects; the informer's
 * first watch closes with 410 Gone (one relist, {@code expired}, that brings no update, and a new
 * watch whose ADDED replays fabric8 drops); then two updates, a delete and an add; then resyncs at
 * fabric8's shortest period, 1 s, until {@value #WAVES} more have been seen, and the informer stops
 * right after the last one, a second before the next. Prints {@code truth} lines and
 * {@code SCENARIO DONE}, then waits for its standard input to close (so the metrics can be scraped).
 */
public final class Fabric8Scenario {

  static final int OBJECTS = 4;
  static final int WAVES = 3;
  static final String NAMESPACE = "fabric8-scenario";

  private Fabric8Scenario() {}

  public static void main(String[] args) throws Exception {
    String kind = "ConfigMap";
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--kind") && i + 1 < args.length) {
        kind = args[++i];
      } else {
        System.err.println("usage: fabric8-scenario [--kind ConfigMap|Secret]");
        System.exit(2);
      }
    }
    Truth truth = new Truth();
    try (MockApiServer server = MockApiServer.start()) {
      run(server, kind, truth);
    }
    System.out.print(truth.render());
    System.out.println("SCENARIO DONE");
    System.out.flush();
    while (System.in.read() >= 0) {
      // stay up for the scrape until the test closes our input
    }
    // the client's and the operator's pools may leave threads that are not daemons
    System.exit(0);
  }

  /** Runs the scenario for {@code kind} against {@code server}, counting into {@code truth}. */
  public static void run(MockApiServer server, String kind, Truth truth) throws Exception {
    KubernetesClient client = server.client();
    Resources<?> resources = kind.equals("Secret") ? new Resources<>(client, Secret.class, "secrets") : new Resources<>(client, ConfigMap.class, "configmaps");
    for (int i = 0; i < OBJECTS; i++) {
      resources.create("object-" + i);
    }
    String listed = resources.listVersion();
    // fabric8 lists at version 0 first, then watches from the list's version: that watch expires
    server.expireWatchOnce(resources.plural, NAMESPACE, listed, 300);
    int before = server.requestCount();
    try (Fabric8Sample<?> sample = resources.sample(truth).start()) {
      // the relist (a second list and a second watch) comes after fabric8's reconnect back-off
      await("the relist after the expired watch", () -> server.requestCount() >= before + 4, Duration.ofSeconds(30));
      Thread.sleep(500);
      resources.update("object-0");
      resources.update("object-1");
      resources.delete("object-2");
      resources.create("object-" + OBJECTS);
      // the same number of objects in every resync from here on
      Thread.sleep(1_500);
      long target = sample.resyncWaves() + WAVES;
      await(WAVES + " more resyncs", () -> sample.resyncWaves() >= target, Duration.ofSeconds(30));
      // the last resync's burst is over in milliseconds; the next tick is a second away
      await("the last resync to end", () -> sample.resyncWaves() == target && sinceLastResyncCall(sample) > 150_000_000L, Duration.ofSeconds(5));
      sample.informer().stop();
      truth.set(series("informer_resyncs_total", "kind", kind), sample.resyncWaves());
    }
    truth.set(series("informer_relists_total", "kind", kind, "reason", "expired"), 1);
    truth.set(series("informer_relists_total", "kind", kind, "reason", "error"), 0);
    for (String handler : new String[] {"Fabric8Sample$VersionCheckingHandler", "Fabric8Sample$EveryUpdateHandler"}) {
      truth.set(series("informer_resync_period_seconds", "handler", handler, "kind", kind), 1);
    }
  }

  private static long sinceLastResyncCall(Fabric8Sample<?> sample) {
    return sample.sinceLastResyncCall();
  }

  static void await(String what, BooleanSupplier condition, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }

  /** The objects of one kind in the scenario's namespace. */
  static final class Resources<T extends HasMetadata> {
    final KubernetesClient client;
    final Class<T> type;
    final String plural;

    Resources(KubernetesClient client, Class<T> type, String plural) {
      this.client = client;
      this.type = type;
      this.plural = plural;
    }

    Fabric8Sample<T> sample(Truth truth) {
      return new Fabric8Sample<>(client, type, NAMESPACE, 1_000, truth);
    }

    void create(String name) {
      client.resource(object(name, "1")).inNamespace(NAMESPACE).create();
    }

    /** A JSON patch of the object's data (the mock server takes JSON and merge patches only). */
    @SuppressWarnings("unchecked")
    void update(String name) {
      client.resources(type).inNamespace(NAMESPACE).withName(name).edit(current -> (T) changed(current));
    }

    private static HasMetadata changed(HasMetadata current) {
      if (current instanceof Secret) {
        return new SecretBuilder((Secret) current).addToData("changed", Base64.getEncoder().encodeToString("yes".getBytes())).build();
      }
      return new ConfigMapBuilder((ConfigMap) current).addToData("changed", "yes").build();
    }

    void delete(String name) {
      client.resources(type).inNamespace(NAMESPACE).withName(name).delete();
    }

    String listVersion() {
      return client.resources(type).inNamespace(NAMESPACE).list().getMetadata().getResourceVersion();
    }

    private HasMetadata object(String name, String value) {
      if (type == Secret.class) {
        String encoded = Base64.getEncoder().encodeToString(value.getBytes());
        return new SecretBuilder().withNewMetadata().withName(name).endMetadata().withData(Map.of("value", encoded)).build();
      }
      return new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().withData(Map.of("value", value)).build();
    }
  }
}
