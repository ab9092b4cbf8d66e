package dev.resyncmeter.agent.fabric8.request;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.resyncmeter.agent.api.InstrumentationUnit;
import dev.resyncmeter.agent.api.WeavingRules;

/**
 * fabric8's API requests, whichever HTTP client the application uses: each implementation extends
 * fabric8's {@code StandardHttpClient}, whose retries and interceptors end in one call of its
 * {@code consumeBytesDirect} (a request) or {@code buildWebSocketDirect} (a WebSocket upgrade: a watch)
 * per request sent. Both return a future that completes when the response starts. A write's effect is
 * read one level up, in {@code OperationSupport}, where the object it starts from and the one it got
 * back are at hand.
 */
public final class Fabric8RequestInstrumentation implements InstrumentationUnit {

  /** fabric8's HTTP client implementations: JDK, OkHttp, Vert.x 4 and 5, Jetty. */
  public static final String[] HTTP_CLIENTS = {
    "io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientImpl",
    "io.fabric8.kubernetes.client.okhttp.OkHttpClientImpl",
    "io.fabric8.kubernetes.client.vertx.VertxHttpClient",
    "io.fabric8.kubernetes.client.vertx5.Vertx5HttpClient",
    "io.fabric8.kubernetes.client.jetty.JettyHttpClient",
  };

  /** Where each write the client makes is sent and answered, on the calling thread. */
  public static final String OPERATION_SUPPORT = "io.fabric8.kubernetes.client.dsl.internal.OperationSupport";

  @Override
  public WeavingRules install(WeavingRules builder) {
    return builder
        .type(HTTP_CLIENTS)
        .transform(
            builder.layoutChecked()
                .method("consumeBytesDirect", 2, Fabric8RequestAdvice.ConsumeBytesDirect.class)
                .method("buildWebSocketDirect", 2, Fabric8RequestAdvice.BuildWebSocketDirect.class))
        .type(OPERATION_SUPPORT)
        .transform(
            builder.layoutChecked()
                .method("handleUpdate", 2, Fabric8WriteAdvice.Update.class)
                .advice(
                    "T handlePatch(PatchContext, T current, T updated, Class)",
                    named("handlePatch").and(takesArguments(4)).and(not(takesArgument(2, String.class))),
                    Fabric8WriteAdvice.PatchOfObjects.class,
                    true)
                .advice(
                    "T handlePatch(PatchContext, T current, String patch, Class)",
                    named("handlePatch").and(takesArguments(4)).and(takesArgument(2, String.class)),
                    Fabric8WriteAdvice.PatchText.class,
                    true)
                .method("handleCreate", 2, Fabric8WriteAdvice.Create.class)
                .method("handleDelete", 4, Fabric8WriteAdvice.Delete.class));
  }
}
