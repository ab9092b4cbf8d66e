package dev.resyncmeter.examples.scenario;

import java.io.IOException;
import java.util.TreeSet;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * The application's own network interceptor: it keeps the headers of the first GET the client sends,
 * as they leave. With {@link #describe} it shows the HTTP client's configuration, so a run with the
 * agent can be compared with one without.
 */
final class HeaderProbe implements Interceptor {

  private volatile String firstGet;

  @Override
  public Response intercept(Chain chain) throws IOException {
    Request request = chain.request();
    if (firstGet == null && request.method().equals("GET")) {
      TreeSet<String> headers = new TreeSet<>();
      for (String name : request.headers().names()) {
        // Host carries the port, which differs from run to run
        headers.add(name.equalsIgnoreCase("Host") ? name : name + "=" + request.header(name));
      }
      firstGet = headers.toString();
    }
    return chain.proceed(request);
  }

  String firstGet() {
    return firstGet;
  }

  /** Interceptors, timeouts, retries, redirects, protocols and TLS parts of {@code client}. */
  static String describe(OkHttpClient client) {
    return "interceptors="
        + names(client.interceptors())
        + " networkInterceptors="
        + names(client.networkInterceptors())
        + " connectTimeoutMillis="
        + client.connectTimeoutMillis()
        + " readTimeoutMillis="
        + client.readTimeoutMillis()
        + " writeTimeoutMillis="
        + client.writeTimeoutMillis()
        + " callTimeoutMillis="
        + client.callTimeoutMillis()
        + " retryOnConnectionFailure="
        + client.retryOnConnectionFailure()
        + " followRedirects="
        + client.followRedirects()
        + " protocols="
        + client.protocols()
        + " sslSocketFactory="
        + client.sslSocketFactory().getClass().getName()
        + " hostnameVerifier="
        + client.hostnameVerifier().getClass().getName();
  }

  private static String names(java.util.List<?> interceptors) {
    StringBuilder out = new StringBuilder("[");
    for (Object interceptor : interceptors) {
      // a lambda's class name carries a number that changes from run to run
      out.append(out.length() == 1 ? "" : ", ").append(interceptor.getClass().getName().replaceAll("\\$\\$Lambda.*", "\\$\\$Lambda"));
    }
    return out.append(']').toString();
  }
}
