package dev.resyncmeter.examples.apiserver;

import com.sun.net.httpserver.HttpServer;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

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
 *       version and a MODIFIED event; 404 NotFound for a missing object. The same with a JSON patch
 *       (RFC 6902, {@code application/json-patch+json}) of the operations {@code add}, {@code
 *       remove}, {@code replace} and {@code test} on the object's maps (a failed {@code test} or a
 *       missing path is a 422). A server-side apply ({@code application/apply-patch+yaml}, with a
 *       {@code fieldManager}; the configuration as JSON) of an existing object, merged as a merge
 *       patch is, without managed fields. 415 UnsupportedMediaType for any other patch type
 *       (strategic merge patch).
 *   <li>Every write that changes the object is answered with the object as stored, carrying the new
 *       resourceVersion, and its watch event carries that same version: a client can tell its own
 *       write's event by the version it was answered with. A write that changes nothing (a PUT or
 *       patch of what is stored) is answered with the stored version and sends no event.
 *   <li>One global resourceVersion counter, strictly increasing, as decimal strings; every write
 *       stamps {@code metadata.resourceVersion}; create also sets {@code uid} and {@code
 *       creationTimestamp}. A DELETED event carries the deleting version.
 * </ul>
 *
 * <p>What it does not do: any other resource (namespaces need not exist, there is no discovery,
 * {@code /version} or OpenAPI); PATCH other than JSON merge patch, JSON patch and server-side apply; label or field selectors (refused with 400 rather than
 * silently ignored); pagination ({@code limit} and {@code continue} are ignored, everything comes
 * in one page); {@code resourceVersionMatch}, {@code sendInitialEvents} and bookmarks (ignored;
 * {@code allowWatchBookmarks} is accepted, no BOOKMARK is ever sent); generateName, validation
 * beyond "a name is present", finalizers, graceful deletion, dry-run, server-side apply's field ownership
 * and creation, managed fields; authentication, authorization, TLS, HTTP/2, protobuf.
 *
 * <p>The JDK's HttpServer cannot tell that a client went away while a watch is idle; such a watch
 * counts as open until its next event write fails, its timeout, {@link #expireWatches()} or {@link
 * #close()}.
 *
 * <p>All public methods are thread-safe. All threads are daemons; every wait is bounded. Starting
 * a server sets the JVM-wide {@code sun.net.httpserver.nodelay=true} unless it is already set.
 *
 * <p>This class holds the server's life (the JDK's HttpServer, its threads) and the Java API; the
 * parts are {@link ApiHandler} (routing, Status bodies, request counts), {@link ConfigMapStore} (the
 * objects and their versions), {@link WatchStreams} (the watch streams) and {@link WatchHistory}
 * (the events a watch resumes from, and the 410 Expired of a version too old).
 */
public final class EmbeddedApiServer implements AutoCloseable {

  /** How many events the history keeps for watches that resume from a resourceVersion. */
  public static final int HISTORY_LIMIT = 10_000;

  /** A watch without timeoutSeconds ends after this, like a real server's request timeout. */
  public static final int DEFAULT_WATCH_TIMEOUT_SECONDS = 1800;

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
  private final ConfigMapStore store = new ConfigMapStore();
  private final WatchStreams watches = new WatchStreams(store);
  private final ApiHandler handler = new ApiHandler(store, watches);

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
    http.createContext("/", handler);
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
      return ConfigMapStore.copy(store.create(namespace, body));
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
    try {
      return store.update(namespace, name, data);
    } catch (StatusException e) {
      throw new NoSuchElementException(e.getMessage());
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
    try {
      return store.updateWithoutEvent(namespace, name, data);
    } catch (StatusException e) {
      throw new NoSuchElementException(e.getMessage());
    }
  }

  /**
   * Deletes a ConfigMap.
   *
   * @throws NoSuchElementException if it does not exist
   */
  public void delete(String namespace, String name) {
    try {
      store.delete(namespace, name);
    } catch (StatusException e) {
      throw new NoSuchElementException(e.getMessage());
    }
  }

  /** A copy of the stored object, if any. */
  public Optional<V1ConfigMap> get(String namespace, String name) {
    return store.get(namespace, name);
  }

  /** How many ConfigMaps are stored, across namespaces. */
  public int size() {
    return store.size();
  }

  /** The store's current resourceVersion, as a list would report it. */
  public String currentResourceVersion() {
    return store.currentResourceVersion();
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
    store.expire();
  }

  /** Watches that are streaming now (a watch answered with an immediate 410 is never open). */
  public int openWatchCount() {
    return watches.openCount();
  }

  /** Waits, at most {@code timeout}, until at least {@code n} watches are open. */
  public boolean awaitOpenWatches(int n, Duration timeout) {
    return watches.awaitOpen(n, timeout);
  }

  /**
   * Responses started so far, by {@code "<method> <code>"} ({@code "GET 200"}): what a client sees as
   * its requests' results (a watch counts when its stream starts).
   */
  public Map<String, Long> responsesStarted() {
    return handler.responsesStarted();
  }

  /** Collection GETs without watch (list calls) served so far. */
  public long listRequests() {
    return handler.listRequests();
  }

  /** Collection GETs with watch served so far, including those answered with a 410 event. */
  public long watchRequests() {
    return handler.watchRequests();
  }

  /**
   * Ends every watch stream (cleanly where it can, within about a second) and stops the server.
   * Idempotent.
   */
  @Override
  public void close() {
    if (!watches.close()) {
      return;
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
}
