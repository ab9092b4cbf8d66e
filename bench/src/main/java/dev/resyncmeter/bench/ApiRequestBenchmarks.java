package dev.resyncmeter.bench;

import io.kubernetes.client.extended.controller.DefaultController;
import io.kubernetes.client.extended.controller.reconciler.Reconciler;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.extended.workqueue.DefaultRateLimitingQueue;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.ClientBuilder;
import java.io.IOException;
import java.lang.reflect.Field;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import okhttp3.MediaType;
import okhttp3.Protocol;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One API request from inside a reconcile, as a reconciler reads its object: the call client-java's
 * {@code ApiClient} builds, executed on its OkHttp client, where an application interceptor of the
 * host's answers in process. The request costs microseconds instead of a network round trip, and
 * its body is not parsed, so what the agent adds (the request's attribution to the reconcile, the
 * REST client meters) is not lost in the noise of the network or of JSON's garbage.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ApiRequestBenchmarks {

  private static final String CONFIG_MAP =
      "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm-0\",\"namespace\":\"default\",\"uid\":\"5d0c2a3e-0000-4000-8000-000000000007\",\"resourceVersion\":\"7\"},\"data\":{\"v\":\"1\"}}";

  /**
   * A controller's reconciler (the agent's stand-in, with the agent) that sends one call, built as
   * client-java's generated API builds it, on a client whose own interceptor answers in process with
   * the object at version 7; the answer's body is not parsed.
   */
  public abstract static class OneCallController {
    ExecutorService delaying;
    Reconciler reconciler;
    final Request request = new Request("default", "cm-0");

    /** The call's method, and the object it sends (null: none). */
    abstract String method();

    abstract Object body();

    @Setup
    public void setUp() throws ReflectiveOperationException {
      ApiClient client = new ClientBuilder().setBasePath("http://127.0.0.1:1").build();
      client.setHttpClient(
          client.getHttpClient().newBuilder()
              .addInterceptor(
                  chain ->
                      new Response.Builder()
                          .request(chain.request())
                          .protocol(Protocol.HTTP_1_1)
                          .code(200)
                          .message("OK")
                          .body(ResponseBody.create(CONFIG_MAP, MediaType.get("application/json")))
                          .build())
              .build());
      String method = method();
      Object body = body();
      java.util.Map<String, String> headers = body == null ? java.util.Map.of() : java.util.Map.of("Content-Type", "application/json");
      Reconciler calling =
          request -> {
            try (Response response = client.buildCall(client.getBasePath(), "/api/v1/namespaces/" + request.getNamespace() + "/configmaps/" + request.getName(), method,
                    List.of(), List.of(), body, new HashMap<>(headers), new HashMap<>(), new HashMap<>(), new String[0], null).execute()) {
              if (response.code() != 200) {
                throw new IllegalStateException("the in-process answer failed");
              }
            } catch (IOException | ApiException e) {
              throw new IllegalStateException(e);
            }
            return new Result(false);
          };
      delaying = Executors.newSingleThreadExecutor(ResyncPipeline.daemon("bench-delaying"));
      DefaultController controller = new DefaultController("bench-" + method, calling, new DefaultRateLimitingQueue<Request>(delaying));
      Field field = DefaultController.class.getDeclaredField("reconciler");
      field.setAccessible(true);
      reconciler = (Reconciler) field.get(controller);
      if (Boolean.getBoolean(MicroBenchmarks.EXPECT_AGENT) && reconciler == calling) {
        throw new IllegalStateException("the agent is attached but did not put its stand-in in front of the reconciler");
      }
    }

    @TearDown
    public void tearDown() {
      delaying.shutdownNow();
    }
  }

  /** A reconciler that reads its object once. */
  @State(Scope.Thread)
  public static class ReadingController extends OneCallController {
    @Override
    String method() {
      return "GET";
    }

    @Override
    Object body() {
      return null;
    }
  }

  /**
   * A reconciler that writes its object back once, as one with nothing to change does on a resync: an
   * update carrying the version it read, answered with the object at that version (the API server's
   * answer to an update that changes nothing). With the agent, that reads the version sent and the
   * version answered: the write's effect.
   */
  @State(Scope.Thread)
  public static class WritingController extends OneCallController {
    @Override
    String method() {
      return "PUT";
    }

    @Override
    Object body() {
      return new V1ConfigMap().metadata(new V1ObjectMeta().name("cm-0").namespace("default").resourceVersion("7")).data(java.util.Map.of("v", "1"));
    }
  }

  /**
   * A reconciler that writes a change of its object once: an update from version 6, answered with the
   * object at version 7. With the agent, the answer is kept as the object's last own write (the one
   * its echo will carry) as well as read for the write's effect.
   */
  @State(Scope.Thread)
  public static class ChangingController extends OneCallController {
    @Override
    String method() {
      return "PUT";
    }

    @Override
    Object body() {
      return new V1ConfigMap().metadata(new V1ObjectMeta().name("cm-0").namespace("default").resourceVersion("6")).data(java.util.Map.of("v", "2"));
    }
  }

  /** One reconcile that sends one update of its object that changes it. Per op: one write. */
  @Benchmark
  public Result apiChangingWriteInReconcile(ChangingController state) {
    return state.reconciler.reconcile(state.request);
  }

  /** One reconcile that sends one API request (a get), answered in process. Per op: one request. */
  @Benchmark
  public Result apiRequestInReconcile(ReadingController state) {
    return state.reconciler.reconcile(state.request);
  }

  /** One reconcile that sends one update of its object, answered in process unchanged. Per op: one write. */
  @Benchmark
  public Result apiWriteInReconcile(WritingController state) {
    return state.reconciler.reconcile(state.request);
  }
}
