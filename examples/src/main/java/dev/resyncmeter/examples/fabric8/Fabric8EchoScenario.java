package dev.resyncmeter.examples.fabric8;

import dev.resyncmeter.examples.truth.EchoTruth;
import dev.resyncmeter.examples.truth.Truth;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.Map;

/**
 * Echoes with fabric8 on its mock server in CRUD mode: one informer (resync off) of the namespace
 * {@value #NAMESPACE} with one handler ({@link EchoHandler}), and the application's own writes to the
 * objects it watches, one after another, each waiting for its echo: an update, an edit (fabric8 sends
 * a JSON patch), a JSON merge patch, a JSON patch, an update and a merge patch that change nothing
 * (the same version back, no event), and a merge patch right after which another client (plain JDK
 * HTTP, which the agent does not see) patches the same object: its update carries the other client's
 * version, no echo. Server-side apply is tried and skipped when the mock server refuses it.
 *
 * <p>The mock server sends a write's watch event before its answer: the handler may see an echo before
 * the writer knows its version, so the application tells echoes only after the run ({@link EchoTruth}).
 * Prints {@code WRITE}, {@code UPDATE} and {@code truth} lines and {@code SCENARIO DONE}, then waits
 * for its standard input to close.
 */
public final class Fabric8EchoScenario {

  static final String NAMESPACE = "fabric8-echo";
  static final String KIND = "ConfigMap";
  static final String HANDLER = "Fabric8EchoScenario$EchoHandler";
  static final Duration WAIT = Duration.ofSeconds(30);

  private final EchoTruth echoes = new EchoTruth();
  private KubernetesClient client;

  private Fabric8EchoScenario() {}

  public static void main(String[] args) throws Exception {
    Fabric8EchoScenario scenario = new Fabric8EchoScenario();
    Truth truth = new Truth();
    try (MockApiServer server = MockApiServer.start()) {
      scenario.client = server.client();
      scenario.run();
    }
    scenario.echoes.countInto(truth, false);
    scenario.echoes.transcript().forEach(System.out::println);
    System.out.print(truth.render());
    System.out.println("SCENARIO DONE");
    System.out.flush();
    while (System.in.read() >= 0) {
      // stay up for the scrape until the test closes our input
    }
    System.exit(0);
  }

  /** The handler: records each update call as it saw it. */
  final class EchoHandler implements ResourceEventHandler<ConfigMap> {
    @Override
    public void onAdd(ConfigMap object) {}

    @Override
    public void onUpdate(ConfigMap oldObject, ConfigMap newObject) {
      echoes.updated(HANDLER, KIND, newObject.getMetadata().getUid(), oldObject.getMetadata().getResourceVersion(), newObject.getMetadata().getResourceVersion());
    }

    @Override
    public void onDelete(ConfigMap object, boolean deletedFinalStateUnknown) {}
  }

  private void run() throws Exception {
    for (String name : new String[] {"written", "other-written"}) {
      client.resource(new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().withData(Map.of("k", "0")).build()).inNamespace(NAMESPACE).create();
    }
    SharedIndexInformer<ConfigMap> informer = client.configMaps().inNamespace(NAMESPACE).inform(new EchoHandler(), 0);
    try {
      Resource<ConfigMap> written = client.configMaps().inNamespace(NAMESPACE).withName("written");

      ConfigMap read = written.get();
      write("update", read, () -> client.resource(new ConfigMapBuilder(read).addToData("k", "1").build()).update());
      write("edit (a JSON patch)", written.get(), () -> written.edit(c -> new ConfigMapBuilder(c).addToData("k", "2").build()));
      write("merge patch", written.get(), () -> written.patch(PatchContext.of(PatchType.JSON_MERGE), "{\"data\":{\"k\":\"3\"}}"));
      write("JSON patch", written.get(), () -> written.patch(PatchContext.of(PatchType.JSON), "[{\"op\":\"replace\",\"path\":\"/data/k\",\"value\":\"4\"}]"));
      try {
        ConfigMap applied = new ConfigMapBuilder().withNewMetadata().withName("written").endMetadata().withData(Map.of("k", "5")).build();
        write("server-side apply", written.get(), () -> client.resource(applied).inNamespace(NAMESPACE).fieldManager("fabric8-echo").forceConflicts().serverSideApply());
      } catch (KubernetesClientException refused) {
        System.out.println("SKIPPED server-side apply: the mock server answers " + refused.getCode());
      }
      ConfigMap current = written.get();
      write("update of the object as read", current, () -> client.resource(current).update());
      write("merge patch of what is there", written.get(), () -> written.patch(PatchContext.of(PatchType.JSON_MERGE), "{\"data\":{\"k\":\"" + current.getData().get("k") + "\"}}"));

      // another client's write between ours and its echo: not ours, so its update is no echo
      Resource<ConfigMap> other = client.configMaps().inNamespace(NAMESPACE).withName("other-written");
      ConfigMap before = other.get();
      ConfigMap ours = other.patch(PatchContext.of(PatchType.JSON_MERGE), "{\"data\":{\"ours\":\"yes\"}}");
      String othersVersion = MockApiServer.mergePatchByAnotherClient(client, NAMESPACE, "other-written", "{\"data\":{\"theirs\":\"yes\"}}");
      echoes.answered("merge patch before another client's", "other-written", before.getMetadata().getUid(), before.getMetadata().getResourceVersion(), ours.getMetadata().getResourceVersion());
      awaitSeen(before.getMetadata().getUid(), ours.getMetadata().getResourceVersion());
      awaitSeen(before.getMetadata().getUid(), othersVersion);
      // nothing comes for the writes that changed nothing
      Thread.sleep(500);
    } finally {
      informer.stop();
    }
  }

  /** One write of ours to {@code read}'s object; a changing one waits for its echo at the handler. */
  private void write(String what, ConfigMap read, java.util.function.Supplier<ConfigMap> write) throws InterruptedException {
    ConfigMap answer = write.get();
    String sent = read.getMetadata().getResourceVersion();
    String version = answer.getMetadata().getResourceVersion();
    echoes.answered(what, read.getMetadata().getName(), read.getMetadata().getUid(), sent, version);
    if (!version.equals(sent)) {
      awaitSeen(read.getMetadata().getUid(), version);
    }
  }

  private void awaitSeen(String uid, String version) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!echoes.seen(uid, version)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("no update with version " + version + " reached the handler");
      }
      Thread.sleep(10);
    }
  }
}
