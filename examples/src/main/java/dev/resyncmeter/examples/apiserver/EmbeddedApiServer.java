package dev.resyncmeter.examples.apiserver;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * An in-process Kubernetes API server that serves ConfigMaps, and nothing else, to an unmodified
 * client-java {@code ApiClient} over plain HTTP/1.1 on 127.0.0.1.
 *
 * <p>What it supports:
 *
 * <ul>
 *   <li>{@code GET /api/v1/configmaps} and {@code GET /api/v1/namespaces/{ns}/configmaps}: a
 *       {@code ConfigMapList} of the current state, whatever {@code resourceVersion} is asked for
 *       ("", "0" or a number); {@code metadata.resourceVersion} is the store's current version;
 *       items carry no kind/apiVersion, as on a real server.
 *   <li>The same paths with {@code watch=true} (or {@code 1}): a chunked stream of newline-delimited
 *       watch events. With a numeric {@code resourceVersion} the events after it are replayed from
 *       a bounded history ({@value #HISTORY_LIMIT} events), then live ones follow; with none, "" or
 *       "0" every current object is first sent as ADDED. {@code timeoutSeconds} ends the stream
 *       (default {@value #DEFAULT_WATCH_TIMEOUT_SECONDS} s). A version older than the history, or
 *       one made too old by {@link #expireWatches()}, gets a single {@code ERROR} event with a 410
 *       {@code Expired} Status, then the stream ends, as a real server does after compaction.
 *   <li>{@code GET/PUT/DELETE /api/v1/namespaces/{ns}/configmaps/{name}} and {@code POST
 *       /api/v1/namespaces/{ns}/configmaps}, with 404 NotFound, 409 AlreadyExists and 409 Conflict
 *       (a PUT whose {@code metadata.resourceVersion} is stale) as {@code v1 Status} bodies. A PUT
 *       without a resourceVersion is unconditional. A PUT that changes nothing keeps the version and
 *       emits no event, as a real server does (so a controller writing back what it read does not
 *       feed itself events).
 *   <li>{@code PATCH /api/v1/namespaces/{ns}/configmaps/{name}} with a JSON merge patch (RFC 7386,
 *       {@code application/merge-patch+json}), as a real server applies one: a {@code
 *       metadata.resourceVersion} in the patch is a precondition (409 Conflict when stale), a patch
 *       that changes nothing keeps the version and emits no event, one that changes gets a new
 *       version and a MODIFIED event; 404 NotFound for a missing object, 415 UnsupportedMediaType
 *       for any other patch type (JSON patch, strategic merge patch, apply).
 *   <li>One global resourceVersion counter, strictly increasing, as decimal strings; every write
 *       stamps {@code metadata.resourceVersion}; create also sets {@code uid} and {@code
 *       creationTimestamp}. A DELETED event carries the deleting version.
 * </ul>
 *
 * <p>What it does not do: any other resource (namespaces need not exist, there is no discovery,
 * {@code /version} or OpenAPI); PATCH other than JSON merge patch; label or field selectors (refused with 400 rather than
 * silently ignored); pagination ({@code limit} and {@code continue} are ignored, everything comes
 * in one page); {@code resourceVersionMatch}, {@code sendInitialEvents} and bookmarks (ignored;
 * {@code allowWatchBookmarks} is accepted, no BOOKMARK is ever sent); generateName, validation
 * beyond "a name is present", finalizers, graceful deletion, dry-run, server-side apply, managed
 * fields; authentication, authorization, TLS, HTTP/2, protobuf.
 *
 * <p>The JDK's HttpServer cannot tell that a client went away while a watch is idle; such a watch
 * counts as open until its next event write fails, its timeout, {@link #expireWatches()} or {@link
 * #close()}.
 *
 * <p>All public methods are thread-safe. All threads are daemons; every wait is bounded. Starting
 * a server sets the JVM-wide {@code sun.net.httpserver.nodelay=true} unless it is already set.
 */
public final class EmbeddedApiServer implements AutoCloseable {

  /** How many events the history keeps for watches that resume from a resourceVersion. */
  public static final int HISTORY_LIMIT = 10_000;

  /** A watch without timeoutSeconds ends after this, like a real server's request timeout. */
  public static final int DEFAULT_WATCH_TIMEOUT_SECONDS = 1800;

  private static final Logger LOG = Logger.getLogger(EmbeddedApiServer.class.getName());
  private static final Duration CLOSE_GRACE = Duration.ofSeconds(1);
  private static final AtomicInteger SERVERS = new AtomicInteger();

  static {
    // client-java 20 sets JSON's static Gson only when a JSON is constructed (an ApiClient does),
    // and the server serialises before any client exists.
    new JSON();
  }

  private final HttpServer http;
  private final ExecutorService executor;
  private final String url;

  // One lock guards the store, the history and the watch bookkeeping; `changed` is signalled on
  // every write, expiry, watch open/close and close.
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final TreeMap<String, V1ConfigMap> objects = new TreeMap<>(); // "ns/name" -> object
  private final ArrayDeque<Event> history = new ArrayDeque<>();
  private long revision = 1; // the version of the empty store; the first write gets 2
  private long lastEventRevision = 0;
  private long oldestWatchable = 0; // a watch from R is served iff R >= oldestWatchable
  private int expiryEpoch = 0;
  private int openWatches = 0;
  private boolean closed = false;

  private final AtomicLong listRequests = new AtomicLong();
  private final AtomicLong watchRequests = new AtomicLong();
  private final Map<String, AtomicLong> responses = new java.util.concurrent.ConcurrentHashMap<>();

  private record Event(long revision, String namespace, String line) {}

  /** A Kubernetes error for the HTTP side; the Java API translates it. */
  private static final class StatusException extends RuntimeException {
    final int code;
    final JsonObject status;

    StatusException(int code, String reason, String message, String name) {
      super(message, null, false, false);
      this.code = code;
      this.status = Wire.status(code, reason, message, name);
    }
  }

  private EmbeddedApiServer(int port) throws IOException {
    // HttpServer writes headers and body (and each chunk's parts) separately; with Nagle's
    // algorithm on, the client's delayed ACK adds ~40 ms to every response and watch event. The
    // JDK reads this JVM-wide property once, when its first HttpServer is created.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
    http =
        HttpServer.create(
            new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), port), 0);
    String threadPrefix = "embedded-apiserver-" + SERVERS.incrementAndGet() + "-";
    AtomicInteger threads = new AtomicInteger();
    // One thread per request: a watch holds its thread for as long as it streams.
    executor =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, threadPrefix + threads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    http.setExecutor(executor);
    http.createContext("/", this::handle);
    url = "http://127.0.0.1:" + http.getAddress().getPort();
  }

  /** Starts a server on a free loopback port. */
  public static EmbeddedApiServer start() {
    return start(0);
  }

  /** Starts a server on 127.0.0.1:{@code port} (0 picks a free one). */
  public static EmbeddedApiServer start(int port) {
    EmbeddedApiServer server;
    try {
      server = new EmbeddedApiServer(port);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot bind 127.0.0.1:" + port, e);
    }
    // HttpServer's dispatcher thread inherits daemon-ness from the thread that starts it, and would
    // otherwise keep a JVM alive that forgot to close the server.
    Thread starter = new Thread(server.http::start, "embedded-apiserver-start");
    starter.setDaemon(true);
    starter.start();
    try {
      starter.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.close();
      throw new IllegalStateException("interrupted while starting", e);
    }
    return server;
  }

  /** The base path for client-java, e.g. {@code http://127.0.0.1:34567} (no trailing slash). */
  public String url() {
    return url;
  }

  // ---------------------------------------------------------------- Java API

  /**
   * Creates a ConfigMap.
   *
   * @throws IllegalStateException if it already exists
   */
  public V1ConfigMap create(String namespace, String name, Map<String, String> data) {
    V1ConfigMap body =
        new V1ConfigMap().metadata(new V1ObjectMeta().name(name)).data(new LinkedHashMap<>(data));
    try {
      return copy(doCreate(namespace, body));
    } catch (StatusException e) {
      throw new IllegalStateException(e.getMessage());
    }
  }

  /**
   * Replaces a ConfigMap's data, keeping its other metadata. Always a write: a new
   * resourceVersion and a MODIFIED event, even if the data is the same.
   *
   * @throws NoSuchElementException if it does not exist
   */
  public V1ConfigMap update(String namespace, String name, Map<String, String> data) {
    lock.lock();
    try {
      V1ConfigMap current = objects.get(key(namespace, name));
      if (current == null) {
        throw new NoSuchElementException(notFound(name).getMessage());
      }
      V1ConfigMap next = copy(current).data(new LinkedHashMap<>(data));
      return copy(doReplace(namespace, name, next, true));
    } finally {
      lock.unlock();
    }
  }

  /**
   * Replaces a ConfigMap's data with a new resourceVersion, as any write, but records no event: no
   * watch, open or resumed, ever hears of it, as if its event were lost. Only a list or a get shows
   * it (the drift an informer's cache keeps until the next change or relist).
   *
   * @throws NoSuchElementException if it does not exist
   */
  public V1ConfigMap updateWithoutEvent(String namespace, String name, Map<String, String> data) {
    lock.lock();
    try {
      V1ConfigMap current = objects.get(key(namespace, name));
      if (current == null) {
        throw new NoSuchElementException(notFound(name).getMessage());
      }
      V1ConfigMap next = copy(current).data(new LinkedHashMap<>(data));
      next.getMetadata().setResourceVersion(Long.toString(++revision));
      objects.put(key(namespace, name), next);
      return copy(next);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Deletes a ConfigMap.
   *
   * @throws NoSuchElementException if it does not exist
   */
  public void delete(String namespace, String name) {
    try {
      doDelete(namespace, name);
    } catch (StatusException e) {
      throw new NoSuchElementException(e.getMessage());
    }
  }

  /** A copy of the stored object, if any. */
  public Optional<V1ConfigMap> get(String namespace, String name) {
    lock.lock();
    try {
      return Optional.ofNullable(objects.get(key(namespace, name))).map(EmbeddedApiServer::copy);
    } finally {
      lock.unlock();
    }
  }

  /** How many ConfigMaps are stored, across namespaces. */
  public int size() {
    lock.lock();
    try {
      return objects.size();
    } finally {
      lock.unlock();
    }
  }

  /** The store's current resourceVersion, as a list would report it. */
  public String currentResourceVersion() {
    lock.lock();
    try {
      return Long.toString(revision);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Simulates compaction: every open watch gets a 410 Expired ERROR event and ends, and every
   * resourceVersion up to the current one becomes too old to watch from.
   *
   * <p>The counter advances by one without an object change (a real, shared etcd revision moves
   * with writes to other resources all the time), so the list a client makes next reports a version
   * that is not expired and can be watched from.
   */
  public void expireWatches() {
    lock.lock();
    try {
      revision++;
      oldestWatchable = revision;
      history.clear(); // nothing in it can be replayed any more
      expiryEpoch++;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Watches that are streaming now (a watch answered with an immediate 410 is never open). */
  public int openWatchCount() {
    lock.lock();
    try {
      return openWatches;
    } finally {
      lock.unlock();
    }
  }

  /** Waits, at most {@code timeout}, until at least {@code n} watches are open. */
  public boolean awaitOpenWatches(int n, Duration timeout) {
    long remaining = timeout.toNanos();
    lock.lock();
    try {
      while (openWatches < n) {
        if (remaining <= 0) {
          return false;
        }
        remaining = changed.awaitNanos(remaining);
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Responses started so far, by {@code "<method> <code>"} ({@code "GET 200"}): what a client sees as
   * its requests' results (a watch counts when its stream starts).
   */
  public Map<String, Long> responsesStarted() {
    Map<String, Long> copy = new TreeMap<>();
    responses.forEach((key, count) -> copy.put(key, count.get()));
    return copy;
  }

  private void responding(HttpExchange exchange, int code) {
    responses.computeIfAbsent(exchange.getRequestMethod() + " " + code, k -> new AtomicLong()).incrementAndGet();
  }

  /** Collection GETs without watch (list calls) served so far. */
  public long listRequests() {
    return listRequests.get();
  }

  /** Collection GETs with watch served so far, including those answered with a 410 event. */
  public long watchRequests() {
    return watchRequests.get();
  }

  /**
   * Ends every watch stream (cleanly where it can, within about a second) and stops the server.
   * Idempotent.
   */
  @Override
  public void close() {
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      changed.signalAll();
      // Let the watch threads write their final chunk, so clients see a normal end of stream.
      long remaining = CLOSE_GRACE.toNanos();
      while (openWatches > 0 && remaining > 0) {
        remaining = changed.awaitNanos(remaining);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      lock.unlock();
    }
    // stop(0): close every connection now; stop(n) would wait the full n seconds when idle.
    http.stop(0);
    executor.shutdownNow();
    try {
      executor.awaitTermination(CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---------------------------------------------------------------- store (callers hold no lock)

  private V1ConfigMap doCreate(String namespace, V1ConfigMap body) {
    String name = body.getMetadata() == null ? null : body.getMetadata().getName();
    if (name == null || name.isEmpty()) {
      throw new StatusException(422, "Invalid", "ConfigMap \"\" is invalid: metadata.name: Required value", null);
    }
    lock.lock();
    try {
      String key = key(namespace, name);
      if (objects.containsKey(key)) {
        throw new StatusException(
            409, "AlreadyExists", "configmaps \"" + name + "\" already exists", name);
      }
      V1ConfigMap stored = copy(body).apiVersion("v1").kind("ConfigMap");
      V1ObjectMeta meta = stored.getMetadata();
      meta.setNamespace(namespace);
      meta.setUid(UUID.randomUUID().toString());
      meta.setCreationTimestamp(OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS));
      meta.setResourceVersion(Long.toString(++revision));
      objects.put(key, stored);
      record("ADDED", stored);
      return stored;
    } finally {
      lock.unlock();
    }
  }

  /** Replaces an object; {@code always} skips the stale-version check and no-op detection. */
  private V1ConfigMap doReplace(String namespace, String name, V1ConfigMap body, boolean always) {
    lock.lock();
    try {
      String key = key(namespace, name);
      V1ConfigMap current = objects.get(key);
      if (current == null) {
        throw notFound(name);
      }
      String expected = body.getMetadata().getResourceVersion();
      if (!always
          && expected != null
          && !expected.isEmpty()
          && !expected.equals(current.getMetadata().getResourceVersion())) {
        throw new StatusException(
            409,
            "Conflict",
            "Operation cannot be fulfilled on configmaps \""
                + name
                + "\": the object has been modified; please apply your changes to the latest"
                + " version and try again",
            name);
      }
      V1ConfigMap next = copy(body).apiVersion("v1").kind("ConfigMap");
      V1ObjectMeta meta = next.getMetadata();
      meta.setNamespace(namespace);
      meta.setUid(current.getMetadata().getUid()); // identity is the server's, not the client's
      meta.setCreationTimestamp(current.getMetadata().getCreationTimestamp());
      meta.setResourceVersion(current.getMetadata().getResourceVersion());
      if (!always && Wire.configMap(next, true).equals(Wire.configMap(current, true))) {
        return current; // a real server does not write (or notify) an unchanged object
      }
      meta.setResourceVersion(Long.toString(++revision));
      objects.put(key, next);
      record("MODIFIED", next);
      return next;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Applies a JSON merge patch to the stored object and stores the result as a PUT of it would: the
   * patch's {@code metadata.resourceVersion}, if any, becomes the result's, so a stale one is a 409;
   * a result equal to the stored object is no write.
   */
  private V1ConfigMap doMergePatch(String namespace, String name, String patchBody) {
    JsonElement patch;
    try {
      patch = JsonParser.parseString(patchBody);
    } catch (RuntimeException e) {
      throw new StatusException(400, "BadRequest", "cannot decode merge patch: " + e.getMessage(), null);
    }
    if (!patch.isJsonObject()) {
      throw new StatusException(400, "BadRequest", "a merge patch of a ConfigMap must be a JSON object", name);
    }
    lock.lock();
    try {
      V1ConfigMap current = objects.get(key(namespace, name));
      if (current == null) {
        throw notFound(name);
      }
      JsonObject merged = Wire.configMap(current, true);
      mergeInto(merged, patch.getAsJsonObject());
      V1ConfigMap next = parse(merged.toString());
      checkNamespace(next, namespace);
      if (!name.equals(next.getMetadata().getName())) {
        throw new StatusException(400, "BadRequest", "the name of the object does not match the name on the URL", name);
      }
      return doReplace(namespace, name, next, false);
    } finally {
      lock.unlock();
    }
  }

  /** RFC 7386: null removes a member, an object merges into an object, anything else replaces. */
  private static void mergeInto(JsonObject target, JsonObject patch) {
    for (Map.Entry<String, JsonElement> member : patch.entrySet()) {
      JsonElement value = member.getValue();
      JsonElement existing = target.get(member.getKey());
      if (value.isJsonNull()) {
        target.remove(member.getKey());
      } else if (value.isJsonObject()) {
        JsonObject into = existing != null && existing.isJsonObject() ? existing.getAsJsonObject() : new JsonObject();
        mergeInto(into, value.getAsJsonObject());
        target.add(member.getKey(), into);
      } else {
        target.add(member.getKey(), value);
      }
    }
  }

  private V1ConfigMap doDelete(String namespace, String name) {
    lock.lock();
    try {
      V1ConfigMap removed = objects.remove(key(namespace, name));
      if (removed == null) {
        throw notFound(name);
      }
      removed.getMetadata().setResourceVersion(Long.toString(++revision));
      record("DELETED", removed);
      return removed;
    } finally {
      lock.unlock();
    }
  }

  /** Appends to the bounded history and wakes the watches. Caller holds the lock. */
  private void record(String type, V1ConfigMap object) {
    history.addLast(
        new Event(
            revision,
            object.getMetadata().getNamespace(),
            Wire.watchEvent(type, Wire.configMap(object, true))));
    lastEventRevision = revision;
    if (history.size() > HISTORY_LIMIT) {
      // A watch from before the dropped event would miss it: such versions are now too old.
      oldestWatchable = Math.max(oldestWatchable, history.removeFirst().revision());
    }
    changed.signalAll();
  }

  private static StatusException notFound(String name) {
    return new StatusException(404, "NotFound", "configmaps \"" + name + "\" not found", name);
  }

  private static String key(String namespace, String name) {
    return namespace + "/" + name;
  }

  private static V1ConfigMap copy(V1ConfigMap cm) {
    return JSON.deserialize(JSON.serialize(cm), V1ConfigMap.class);
  }

  // ---------------------------------------------------------------- HTTP

  private void handle(HttpExchange exchange) {
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
          V1ConfigMap cm = parse(body);
          checkNamespace(cm, namespace);
          sendJson(exchange, 201, Wire.configMap(doCreate(namespace, cm), true).toString());
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
            V1ConfigMap cm = get(namespace, name).orElseThrow(() -> notFound(name));
            sendJson(exchange, 200, Wire.configMap(cm, true).toString());
          }
          case "PUT" -> {
            V1ConfigMap cm = parse(body);
            checkNamespace(cm, namespace);
            if (cm.getMetadata() == null || !name.equals(cm.getMetadata().getName())) {
              throw new StatusException(
                  400, "BadRequest", "the name of the object does not match the name on the URL", name);
            }
            sendJson(exchange, 200, Wire.configMap(doReplace(namespace, name, cm, false), true).toString());
          }
          case "PATCH" -> {
            requireMergePatch(exchange.getRequestHeaders().getFirst("Content-Type"));
            sendJson(exchange, 200, Wire.configMap(doMergePatch(namespace, name, body), true).toString());
          }
          case "DELETE" -> {
            V1ConfigMap removed = doDelete(namespace, name);
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
      watch(exchange, namespace, query);
    } else {
      listRequests.incrementAndGet();
      sendJson(exchange, 200, list(namespace));
    }
  }

  /** The current state, whatever resourceVersion was asked for. */
  private String list(String namespace) {
    lock.lock();
    try {
      JsonArray items = new JsonArray();
      for (V1ConfigMap cm : objects.values()) {
        if (namespace == null || namespace.equals(cm.getMetadata().getNamespace())) {
          items.add(Wire.configMap(cm, false));
        }
      }
      JsonObject metadata = new JsonObject();
      metadata.addProperty("resourceVersion", Long.toString(revision));
      JsonObject list = new JsonObject();
      list.addProperty("apiVersion", "v1");
      list.addProperty("kind", "ConfigMapList");
      list.add("metadata", metadata);
      list.add("items", items);
      return list.toString();
    } finally {
      lock.unlock();
    }
  }

  private void watch(HttpExchange exchange, String namespace, Map<String, String> query)
      throws IOException {
    Long from = parseResourceVersion(query.get("resourceVersion"));
    long timeoutNanos = TimeUnit.SECONDS.toNanos(parseTimeout(query.get("timeoutSeconds")));
    long deadline = System.nanoTime() + timeoutNanos;

    List<String> first = new ArrayList<>();
    boolean expired = false;
    long cursor;
    int epoch;
    lock.lock();
    try {
      if (closed) {
        throw new StatusException(503, "ServiceUnavailable", "the server is shutting down", null);
      }
      epoch = expiryEpoch;
      if (from == null) { // "", "0" or absent: the current state as ADDED events, then live
        for (V1ConfigMap cm : objects.values()) {
          if (namespace == null || namespace.equals(cm.getMetadata().getNamespace())) {
            first.add(Wire.watchEvent("ADDED", Wire.configMap(cm, true)));
          }
        }
        cursor = revision;
      } else if (from < oldestWatchable) {
        first.add(Wire.expiredEvent(from, revision));
        expired = true;
        cursor = from;
      } else {
        cursor = from;
      }
      if (!expired) {
        openWatches++;
        changed.signalAll();
      }
    } finally {
      lock.unlock();
    }

    try {
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      responding(exchange, 200);
      exchange.sendResponseHeaders(200, 0); // length 0 means chunked
      OutputStream out = exchange.getResponseBody();
      write(out, first);
      while (!expired) {
        List<String> batch = new ArrayList<>();
        boolean end = false;
        lock.lock();
        try {
          long remaining = deadline - System.nanoTime();
          while (!closed && epoch == expiryEpoch && lastEventRevision <= cursor && remaining > 0) {
            remaining = changed.awaitNanos(remaining);
          }
          if (closed) {
            end = true;
          } else if (epoch != expiryEpoch || cursor < oldestWatchable) {
            // Expired by expireWatches(), or the history moved past a slow watch.
            batch.add(Wire.expiredEvent(cursor, revision));
            end = true;
          } else if (lastEventRevision > cursor) {
            Iterator<Event> newestFirst = history.descendingIterator();
            List<String> lines = new ArrayList<>();
            while (newestFirst.hasNext()) {
              Event event = newestFirst.next();
              if (event.revision() <= cursor) {
                break;
              }
              if (namespace == null || namespace.equals(event.namespace())) {
                lines.add(event.line());
              }
            }
            for (int i = lines.size() - 1; i >= 0; i--) {
              batch.add(lines.get(i));
            }
            cursor = lastEventRevision;
          } else {
            end = true; // timeoutSeconds reached
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          end = true;
        } finally {
          lock.unlock();
        }
        write(out, batch);
        if (end) {
          break;
        }
      }
      out.close(); // the terminating chunk: a clean end of stream
    } finally {
      if (!expired) {
        lock.lock();
        try {
          openWatches--;
          changed.signalAll();
        } finally {
          lock.unlock();
        }
      }
    }
  }

  private static void write(OutputStream out, List<String> lines) throws IOException {
    if (lines.isEmpty()) {
      return;
    }
    for (String line : lines) {
      out.write(line.getBytes(StandardCharsets.UTF_8));
      out.write('\n');
    }
    out.flush(); // HttpServer's chunked stream buffers until flushed
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

  private static V1ConfigMap parse(String body) {
    try {
      V1ConfigMap cm = JSON.deserialize(body, V1ConfigMap.class);
      if (cm == null) {
        throw new IllegalArgumentException("empty body");
      }
      if (cm.getMetadata() == null) {
        cm.setMetadata(new V1ObjectMeta());
      }
      return cm;
    } catch (RuntimeException e) { // JsonParseException or client-java's unknown-field check
      throw new StatusException(400, "BadRequest", "cannot decode ConfigMap: " + e.getMessage(), null);
    }
  }

  private static void checkNamespace(V1ConfigMap cm, String namespace) {
    String inBody = cm.getMetadata().getNamespace();
    if (inBody != null && !inBody.isEmpty() && !inBody.equals(namespace)) {
      throw new StatusException(
          400,
          "BadRequest",
          "the namespace of the provided object does not match the namespace sent on the request",
          null);
    }
  }

  /** A merge patch, with or without parameters ({@code ; charset=utf-8}); other patch types get 415. */
  private static void requireMergePatch(String contentType) {
    String mediaType = contentType == null ? "" : contentType.split(";", 2)[0].trim();
    if (!mediaType.equalsIgnoreCase("application/merge-patch+json")) {
      throw new StatusException(
          415,
          "UnsupportedMediaType",
          "the body of the request was in an unknown format - accepted media types include: application/merge-patch+json"
              + " (EmbeddedApiServer applies JSON merge patches only)",
          null);
    }
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
      return DEFAULT_WATCH_TIMEOUT_SECONDS;
    }
    try {
      long seconds = Long.parseLong(value);
      // Capped at a day so that the deadline arithmetic cannot overflow.
      return seconds > 0 ? Math.min(seconds, TimeUnit.DAYS.toSeconds(1)) : DEFAULT_WATCH_TIMEOUT_SECONDS;
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
