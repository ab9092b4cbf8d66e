package dev.resyncmeter.agent.clientjava.request;

import dev.resyncmeter.collector.RestClientMetrics;
import net.bytebuddy.asm.Advice;

/**
 * The advice woven into client-java's {@code ApiClient} and OkHttp's call. Inlined into those classes,
 * so it may name OkHttp's types in its body (never in its signatures, which the agent's own loader
 * reads); it hands plain values to {@link RequestBridge}, and calls only its public methods (the
 * advice runs in OkHttp's package, where nothing package-private of the agent's is reachable).
 */
final class RequestAdvice {

  private RequestAdvice() {}

  /**
   * {@code ApiClient.buildCall(...)}: the OkHttp client it builds on sends Kubernetes API requests; an
   * update or patch built here starts from the object (or patch) it sends.
   */
  static final class BuildCall {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.FieldValue("httpClient") Object httpClient, @Advice.Argument(2) String method, @Advice.Argument(5) Object body) throws ReflectiveOperationException {
      RequestBridge.apiClientUses(httpClient);
      if (body != null && !"GET".equals(method)) {
        RequestBridge.writeBuilt(method, body);
      }
    }
  }

  /** {@code RealCall.execute()}: one request, if an {@code ApiClient}'s OkHttp client sends it. */
  static final class Execute {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter(@Advice.This Object call, @Advice.FieldValue("client") Object httpClient) {
      if (!RequestBridge.isApiClients(httpClient)) {
        return 0;
      }
      okhttp3.Request request = ((okhttp3.Call) call).request();
      // an HttpUrl keeps its whole text: no path or query is cut out of it per request
      return RequestBridge.sending(request.method(), request.url().toString());
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter long sentAt, @Advice.This Object call, @Advice.Return Object response, @Advice.Thrown Throwable thrown)
        throws java.io.IOException {
      if (sentAt == 0) {
        return;
      }
      okhttp3.Request request = ((okhttp3.Call) call).request();
      int code = thrown == null && response != null ? ((okhttp3.Response) response).code() : RestClientMetrics.NO_RESPONSE;
      RequestBridge.finished(sentAt, request.url().host(), request.url().port(), request.method(), code);
      if (!"GET".equals(request.method()) && RequestBridge.writeAnswered(request.method(), request.url().toString(), code)) {
        // a write answered 2xx: its object's metadata is in the body's first bytes
        RequestBridge.writeAnswerRead(request.method(), request.url().toString(), code, ((okhttp3.Response) response).peekBody(RequestBridge.ANSWER_BYTES_READ).bytes());
      }
    }
  }
}
