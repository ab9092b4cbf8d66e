package dev.resyncmeter.examples.scenario;

import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.kubernetes.client.extended.workqueue.DefaultRateLimitingQueue;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;

/**
 * A controller's unit tests, as they run with the agent attached: Mockito's inline mock maker (its
 * default) mocks client-java types, among them a queue class the agent weaves and the handler
 * interface it matches, and rewrites them with classes it injects into the boot loader. Prints
 * {@code MOCKS WORK} when every stub answered and every call verified; then waits for its input to
 * close, so the test can scrape the agent.
 */
public final class MockScenario {

  private MockScenario() {}

  @SuppressWarnings("unchecked")
  public static void main(String[] args) throws Exception {
    DefaultRateLimitingQueue<String> queue = mock(DefaultRateLimitingQueue.class);
    when(queue.length()).thenReturn(7);
    when(queue.get()).thenReturn("default/cm-0");
    queue.add("default/cm-0");
    queue.addRateLimited("default/cm-0");
    queue.done("default/cm-0");
    verify(queue).add("default/cm-0");
    verify(queue).addRateLimited("default/cm-0");
    check(queue.length() == 7 && "default/cm-0".equals(queue.get()), "the queue mock answers its stubs");

    ResourceEventHandler<V1ConfigMap> handler = mock(ResourceEventHandler.class);
    V1ConfigMap object = new V1ConfigMap().metadata(new V1ObjectMeta().name("cm-0").resourceVersion("1"));
    handler.onUpdate(object, object);
    verify(handler).onUpdate(object, object);

    SharedIndexInformer<V1ConfigMap> informer = mock(SharedIndexInformer.class);
    when(informer.hasSynced()).thenReturn(true);
    informer.addEventHandler(handler);
    verify(informer).addEventHandler(handler);
    check(informer.hasSynced(), "the informer mock answers its stub");

    System.out.println("MOCKS WORK");
    System.out.flush();
    while (System.in.read() >= 0) {
      // wait for the end of input
    }
  }

  private static void check(boolean holds, String what) {
    if (!holds) {
      throw new AssertionError("not so: " + what);
    }
  }
}
