package dev.resyncmeter.agent.fabric8.request;

import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;

import dev.resyncmeter.agent.InstrumentationUnit;
import dev.resyncmeter.agent.LayoutCheckedAdvice;
import dev.resyncmeter.agent.UnitSwitch;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * fabric8's API requests, whichever HTTP client the application uses: each implementation extends
 * fabric8's {@code StandardHttpClient}, whose retries and interceptors end in one call of its
 * {@code consumeBytesDirect} (a request) or {@code buildWebSocketDirect} (a WebSocket upgrade: a watch)
 * per request sent. Both return a future that completes when the response starts.
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

  static final UnitSwitch SWITCH = new UnitSwitch("fabric8 requests", Fabric8RequestBridge.COMPONENT);

  @Override
  public String name() {
    return "requests";
  }

  @Override
  public UnitSwitch unitSwitch() {
    return SWITCH;
  }

  @Override
  public AgentBuilder install(AgentBuilder builder) {
    return builder
        .type(namedOneOf(HTTP_CLIENTS))
        .transform(
            LayoutCheckedAdvice.of(SWITCH)
                .method("consumeBytesDirect", 2, Fabric8RequestAdvice.ConsumeBytesDirect.class)
                .method("buildWebSocketDirect", 2, Fabric8RequestAdvice.BuildWebSocketDirect.class));
  }
}
