package dev.resyncmeter.examples.apiserver;

import static dev.resyncmeter.examples.apiserver.StatusException.notFound;

import com.google.gson.JsonObject;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The HTTP side: routes each request to the {@link ConfigMapStore} or the {@link WatchStreams},
 * answers failures with {@code v1 Status} bodies, and counts what it served. The paths, methods and
 * refusals are {@link EmbeddedApiServer}'s to document.
 */
final class ApiHandler implements HttpHandler {

  private static final Logger LOG = Logger.getLogger(EmbeddedApiServer.class.getName());

  private final ConfigMapStore store;
  private final WatchStreams watches;
  private final AtomicLong listRequests = new AtomicLong();
  private final AtomicLong watchRequests = new AtomicLong();
  private final Map<String, AtomicLong> responses = new ConcurrentHashMap<>();

  ApiHandler(ConfigMapStore store, WatchStreams watches) {
    this.store = store;
    this.watches = watches;
  }

  /** Collection GETs without watch (list calls) served so far. */
  long listRequests() {
    return listRequests.get();
  }

  /** Collection GETs with watch served so far, including those answered with a 410 event. */
  long watchRequests() {
    return watchRequests.get();
  }

  /** Responses started so far, by {@code "<method> <code>"} (a watch counts when its stream starts). */
  Map<String, Long> responsesStarted() {
    Map<String, Long> copy = new TreeMap<>();
    responses.forEach((key, count) -> copy.put(key, count.get()));
    return copy;
  }

  private void responding(HttpExchange exchange, int code) {
    responses.computeIfAbsent(exchange.getRequestMethod() + " " + code, k -> new AtomicLong()).incrementAndGet();
  }

  @Override
  public void handle(HttpExchange exchange) {
    try {
      // Drain the body first so the connection can be kept alive whatever happens next.
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      try {
        route(exchange, body);
      } catch (StatusException e) {
        sendJson(exchange, e.code, e.status.toString());
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "EmbeddedApiServer failed on " + exchange.getRequestURI(), e);
        sendJson(exchange, 500, Wire.status(500, "InternalError", String.valueOf(e), null).toString());
      }
    } catch (IOException e) {
      // The client went away (or headers were already sent): nothing to tell anyone.
    } finally {
      exchange.close();
    }
  }

  private void route(HttpExchange exchange, String body) throws IOException {
    String[] parts = exchange.getRequestURI().getRawPath().split("/");
    List<String> path = new ArrayList<>();
    for (String part : parts) {
      if (!part.isEmpty()) {
        path.add(URLDecoder.decode(part, StandardCharsets.UTF_8));
      }
    }
    Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
    String method = exchange.getRequestMethod();
    boolean core = path.size() >= 3 && path.get(0).equals("api") && path.get(1).equals("v1");

    if (core && path.size() == 3 && path.get(2).equals("configmaps")) {
      requireMethod(method, "GET");
      collection(exchange, null, query);
      return;
    }
    if (core && path.get(2).equals("namespaces") && path.size() >= 5 && path.get(4).equals("configmaps")) {
      String namespace = path.get(3);
      if (path.size() == 5) {
        if (method.equals("POST")) {
          V1ConfigMap cm = Wire.parseConfigMap(body);
          ConfigMapStore.checkNamespace(cm, namespace);
          sendJson(exchange, 201, Wire.configMap(store.create(namespace, cm), true).toString());
          return;
        }
        requireMethod(method, "GET");
        collection(exchange, namespace, query);
        return;
      }
      if (path.size() == 6) {
        String name = path.get(5);
        switch (method) {
          case "GET" -> {
            V1ConfigMap cm = store.get(namespace, name).orElseThrow(() -> notFound(name));
            sendJson(exchange, 200, Wire.configMap(cm, true).toString());
          }
          case "PUT" -> {
            V1ConfigMap cm = Wire.parseConfigMap(body);
            ConfigMapStore.checkNamespace(cm, namespace);
            if (cm.getMetadata() == null || !name.equals(cm.getMetadata().getName())) {
              throw new StatusException(
                  400, "BadRequest", "the name of the object does not match the name on the URL", name);
            }
            sendJson(exchange, 200, Wire.configMap(store.replace(namespace, name, cm, false), true).toString());
          }
          case "PATCH" -> {
            V1ConfigMap patched =
                switch (patchType(exchange.getRequestHeaders().getFirst("Content-Type"))) {
                  case MERGE -> store.mergePatch(namespace, name, body);
                  case JSON -> store.jsonPatch(namespace, name, body);
                  case APPLY -> {
                    String fieldManager = query.get("fieldManager");
                    if (fieldManager == null || fieldManager.isEmpty()) {
                      throw new StatusException(
                          422, "Invalid", "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch", name);
                    }
                    yield store.apply(namespace, name, body);
                  }
                };
            sendJson(exchange, 200, Wire.configMap(patched, true).toString());
          }
          case "DELETE" -> {
            V1ConfigMap removed = store.delete(namespace, name);
            JsonObject status = Wire.status(200, null, null, name);
            status.getAsJsonObject("details").addProperty("uid", removed.getMetadata().getUid());
            sendJson(exchange, 200, status.toString());
          }
          default -> throw methodNotAllowed(method);
        }
        return;
      }
    }
    throw new StatusException(404, "NotFound", "the server could not find the requested resource", null);
  }

  private void collection(HttpExchange exchange, String namespace, Map<String, String> query)
      throws IOException {
    for (String selector : List.of("labelSelector", "fieldSelector")) {
      String value = query.get(selector);
      if (value != null && !value.isEmpty()) {
        throw new StatusException(
            400, "BadRequest", selector + " is not supported by EmbeddedApiServer", null);
      }
    }
    String watch = query.get("watch");
    if ("true".equals(watch) || "1".equals(watch)) {
      watchRequests.incrementAndGet();
      Long from = parseResourceVersion(query.get("resourceVersion"));
      long timeoutSeconds = parseTimeout(query.get("timeoutSeconds"));
      watches.stream(exchange, namespace, from, timeoutSeconds, () -> responding(exchange, 200));
    } else {
      listRequests.incrementAndGet();
      sendJson(exchange, 200, store.list(namespace));
    }
  }

  private void sendJson(HttpExchange exchange, int code, String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    responding(exchange, code);
    exchange.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /** The patch types the server applies. */
  private enum PatchType {
    MERGE,
    JSON,
    APPLY
  }

  /**
   * A merge patch, a JSON patch or a server-side apply, with or without parameters ({@code ;
   * charset=utf-8}); other patch types (strategic merge patch) get 415.
   */
  private static PatchType patchType(String contentType) {
    String mediaType = contentType == null ? "" : contentType.split(";", 2)[0].trim();
    if (mediaType.equalsIgnoreCase("application/merge-patch+json")) {
      return PatchType.MERGE;
    }
    if (mediaType.equalsIgnoreCase("application/json-patch+json")) {
      return PatchType.JSON;
    }
    if (mediaType.equalsIgnoreCase("application/apply-patch+yaml")) {
      return PatchType.APPLY;
    }
    throw new StatusException(
        415,
        "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json,"
            + " application/merge-patch+json, application/apply-patch+yaml (EmbeddedApiServer applies JSON merge patches, JSON"
            + " patches and server-side applies only)",
        null);
  }

  private static void requireMethod(String method, String expected) {
    if (!method.equals(expected)) {
      throw methodNotAllowed(method);
    }
  }

  private static StatusException methodNotAllowed(String method) {
    return new StatusException(
        405, "MethodNotAllowed", method + " is not supported by EmbeddedApiServer", null);
  }

  /** null for "", "0" or absent (start from the current state); otherwise the version. */
  private static Long parseResourceVersion(String value) {
    if (value == null || value.isEmpty() || value.equals("0")) {
      return null;
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new StatusException(
          400, "BadRequest", "invalid resource version: \"" + value + "\"", null);
    }
  }

  private static long parseTimeout(String value) {
    if (value == null || value.isEmpty()) {
      return EmbeddedApiServer.DEFAULT_WATCH_TIMEOUT_SECONDS;
    }
    try {
      long seconds = Long.parseLong(value);
      // Capped at a day so that the deadline arithmetic cannot overflow.
      return seconds > 0 ? Math.min(seconds, TimeUnit.DAYS.toSeconds(1)) : EmbeddedApiServer.DEFAULT_WATCH_TIMEOUT_SECONDS;
    } catch (NumberFormatException e) {
      throw new StatusException(400, "BadRequest", "invalid timeoutSeconds: \"" + value + "\"", null);
    }
  }

  private static Map<String, String> query(String rawQuery) {
    Map<String, String> query = new HashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return query;
    }
    for (String pair : rawQuery.split("&")) {
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      query.put(
          URLDecoder.decode(name, StandardCharsets.UTF_8),
          URLDecoder.decode(value, StandardCharsets.UTF_8));
    }
    return query;
  }
}
