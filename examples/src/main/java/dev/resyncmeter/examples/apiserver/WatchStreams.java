package dev.resyncmeter.examples.apiserver;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The watch streams: chunked, newline-delimited watch events, each on the request's own thread.
 * From a numeric resourceVersion the events after it are replayed from the {@link WatchHistory},
 * then live ones follow; from none, "" or "0" every current object is first sent as ADDED. A
 * version the history calls too old gets a single {@code ERROR} event with a 410 {@code Expired}
 * Status, then the stream ends; so does an open stream when the history expires or moves past it.
 * The deadline ({@code timeoutSeconds}) and {@link #close()} end a stream cleanly.
 *
 * <p>Its bookkeeping (open streams, closed) is guarded by the store's lock.
 */
final class WatchStreams {

  private static final Duration CLOSE_GRACE = Duration.ofSeconds(1);

  private final ConfigMapStore store;
  private int openWatches = 0;
  private boolean closed = false;

  WatchStreams(ConfigMapStore store) {
    this.store = store;
  }

  /** Watches that are streaming now (a watch answered with an immediate 410 is never open). */
  int openCount() {
    store.lock.lock();
    try {
      return openWatches;
    } finally {
      store.lock.unlock();
    }
  }

  /** Waits, at most {@code timeout}, until at least {@code n} watches are open. */
  boolean awaitOpen(int n, Duration timeout) {
    long remaining = timeout.toNanos();
    store.lock.lock();
    try {
      while (openWatches < n) {
        if (remaining <= 0) {
          return false;
        }
        remaining = store.changed.awaitNanos(remaining);
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      store.lock.unlock();
    }
  }

  /**
   * Ends every stream, letting each write its final chunk (so clients see a normal end of stream)
   * for about a second; false when they were closed already.
   */
  boolean close() {
    store.lock.lock();
    try {
      if (closed) {
        return false;
      }
      closed = true;
      store.changed.signalAll();
      long remaining = CLOSE_GRACE.toNanos();
      while (openWatches > 0 && remaining > 0) {
        remaining = store.changed.awaitNanos(remaining);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      store.lock.unlock();
    }
    return true;
  }

  /**
   * Streams the watch of one namespace (null: all) from {@code from} (null: the current state) until
   * {@code timeoutSeconds}, an expiry or {@link #close()}; {@code started} runs just before the
   * response's headers go out. 503 once closed.
   */
  void stream(HttpExchange exchange, String namespace, Long from, long timeoutSeconds, Runnable started) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);

    List<String> first = new ArrayList<>();
    boolean expired = false;
    long cursor;
    int epoch;
    WatchHistory history = store.history();
    store.lock.lock();
    try {
      if (closed) {
        throw new StatusException(503, "ServiceUnavailable", "the server is shutting down", null);
      }
      epoch = history.epoch();
      if (from == null) { // "", "0" or absent: the current state as ADDED events, then live
        first.addAll(store.addedEvents(namespace));
        cursor = store.revision();
      } else if (history.tooOld(from)) {
        first.add(Wire.expiredEvent(from, store.revision()));
        expired = true;
        cursor = from;
      } else {
        cursor = from;
      }
      if (!expired) {
        openWatches++;
        store.changed.signalAll();
      }
    } finally {
      store.lock.unlock();
    }

    try {
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      started.run();
      exchange.sendResponseHeaders(200, 0); // length 0 means chunked
      OutputStream out = exchange.getResponseBody();
      write(out, first);
      while (!expired) {
        List<String> batch = new ArrayList<>();
        boolean end = false;
        store.lock.lock();
        try {
          long remaining = deadline - System.nanoTime();
          while (!closed && epoch == history.epoch() && !history.hasEventsAfter(cursor) && remaining > 0) {
            remaining = store.changed.awaitNanos(remaining);
          }
          if (closed) {
            end = true;
          } else if (epoch != history.epoch() || history.tooOld(cursor)) {
            // Expired by expireWatches(), or the history moved past a slow watch.
            batch.add(Wire.expiredEvent(cursor, store.revision()));
            end = true;
          } else if (history.hasEventsAfter(cursor)) {
            batch.addAll(history.linesAfter(cursor, namespace));
            cursor = history.lastEventRevision();
          } else {
            end = true; // timeoutSeconds reached
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          end = true;
        } finally {
          store.lock.unlock();
        }
        write(out, batch);
        if (end) {
          break;
        }
      }
      out.close(); // the terminating chunk: a clean end of stream
    } finally {
      if (!expired) {
        store.lock.lock();
        try {
          openWatches--;
          store.changed.signalAll();
        } finally {
          store.lock.unlock();
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
}
