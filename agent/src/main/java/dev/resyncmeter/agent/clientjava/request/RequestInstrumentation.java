package dev.resyncmeter.agent.clientjava.request;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;

import dev.resyncmeter.agent.api.InstrumentationUnit;
import dev.resyncmeter.agent.api.WeavingRules;

/**
 * client-java's API requests: an {@code ApiClient} sends them on its OkHttp client, and the
 * synchronous {@code execute()} of a call is one request, sent on the calling thread and answered
 * when it returns (for a watch, when its response starts streaming). An OkHttp client is known as an
 * {@code ApiClient}'s when that builds a call on it (calls are also rebuilt on it: client-java's
 * generic API rewrites the URL of core-group calls); other code's OkHttp clients are left alone.
 * A write's effect: the resourceVersion of the object an update or patch sends is read where the call
 * is built, and the answer's from the response's first bytes, on the same thread.
 */
public final class RequestInstrumentation implements InstrumentationUnit {

  public static final String API_CLIENT = "io.kubernetes.client.openapi.ApiClient";
  public static final String REAL_CALL = "okhttp3.internal.connection.RealCall";
  static final String OK_HTTP_CLIENT = "okhttp3.OkHttpClient";

  @Override
  public WeavingRules install(WeavingRules builder) {
    return builder
        .type(API_CLIENT)
        .transform(
            builder.layoutChecked()
                .field("httpClient", OK_HTTP_CLIENT)
                .advice(
                    "Call buildCall(String, String, String method, List, List, Object body, ...)",
                    named("buildCall").and(returns(named("okhttp3.Call"))).and(takesArgument(2, String.class)).and(takesArgument(5, Object.class)),
                    RequestAdvice.BuildCall.class,
                    true))
        .type(REAL_CALL)
        .transform(
            builder.layoutChecked().field("client", OK_HTTP_CLIENT).method("execute", 0, RequestAdvice.Execute.class));
  }
}
