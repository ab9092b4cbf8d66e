package dev.resyncmeter.agent.fabric8.request;

import net.bytebuddy.asm.Advice;

/**
 * The advice woven into fabric8's HTTP client implementations; it hands the request's method and URI
 * and the returned future to {@link Fabric8RequestBridge}. Its signatures name only the JDK's types,
 * and its bodies use each fabric8 type only as the type it was cast to or returned as: the JVM then
 * verifies this class without loading fabric8, which a Quarkus or Spring Boot host keeps in a loader
 * the agent cannot see (see LoadsWithoutTheLibrariesIT).
 */
final class Fabric8RequestAdvice {

  private Fabric8RequestAdvice() {}

  /** {@code consumeBytesDirect(StandardHttpRequest, Consumer)}: one HTTP request. */
  static final class ConsumeBytesDirect {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter(@Advice.Argument(0) Object request) {
      io.fabric8.kubernetes.client.http.HttpRequest sent = (io.fabric8.kubernetes.client.http.HttpRequest) request;
      return Fabric8RequestBridge.sending(sent.method(), sent.uri());
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter long sentAt, @Advice.Argument(0) Object request, @Advice.Return Object response, @Advice.Thrown Throwable thrown) {
      io.fabric8.kubernetes.client.http.HttpRequest sent = (io.fabric8.kubernetes.client.http.HttpRequest) request;
      Fabric8RequestBridge.whenAnswered(sentAt, sent.method(), sent.uri(), response, thrown);
    }
  }

  /** {@code buildWebSocketDirect(StandardWebSocketBuilder, Listener)}: one WebSocket upgrade request. */
  static final class BuildWebSocketDirect {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter(@Advice.Argument(0) Object builder) {
      io.fabric8.kubernetes.client.http.StandardHttpRequest sent = ((io.fabric8.kubernetes.client.http.StandardWebSocketBuilder) builder).asHttpRequest();
      return Fabric8RequestBridge.sending(sent.method(), sent.uri());
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter long sentAt, @Advice.Argument(0) Object builder, @Advice.Return Object response, @Advice.Thrown Throwable thrown) {
      io.fabric8.kubernetes.client.http.StandardHttpRequest sent = ((io.fabric8.kubernetes.client.http.StandardWebSocketBuilder) builder).asHttpRequest();
      Fabric8RequestBridge.whenAnswered(sentAt, sent.method(), sent.uri(), response, thrown);
    }
  }
}
