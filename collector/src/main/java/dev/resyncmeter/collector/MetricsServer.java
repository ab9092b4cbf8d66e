package dev.resyncmeter.collector;

import dev.resyncmeter.collector.endpoint.EndpointSecurity;
import dev.resyncmeter.collector.endpoint.Refusal;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import javax.net.ssl.SSLSocket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small HTTP/1.1 server for {@code GET /metrics} on blocking sockets, of our own rather than the
 * JDK's {@code HttpServer}: that one reads request heads with no time limit unless global
 * {@code sun.net.httpserver.*} properties are set, which would change the host's own servers too.
 * With {@link EndpointSecurity} it speaks TLS (the handshake is the first thing a connection does) and
 * asks for basic authentication before it answers anything.
 *
 * <p>Every connection is bounded: at most {@link #MAX_CONNECTIONS} at once, a request head (TLS
 * handshake included) of at most {@link #MAX_HEAD_BYTES} read within {@link #HEAD_TIMEOUT_MILLIS},
 * and a whole connection closed after {@link #CONNECTION_TIMEOUT_MILLIS} whatever it is doing. When
 * all slots are taken, a new connection takes the slot of the oldest one that has not sent a whole
 * request yet (idle, slow, or stuck in its handshake), which is closed: holding connections open
 * cannot keep a scrape out. Only when every slot is answering is a new one refused (503). Request
 * bodies are never read, and every response ends the connection ({@code Connection: close}). All its
 * threads are daemons, so it never keeps the host's JVM alive, and nothing it does throws into them.
 */
public final class MetricsServer implements AutoCloseable {

  static final int MAX_CONNECTIONS = 16;
  static final int MAX_HEAD_BYTES = 8 * 1024;
  static final int HEAD_TIMEOUT_MILLIS = 10_000;
  static final int CONNECTION_TIMEOUT_MILLIS = 60_000;
  /** After refusing a request whose rest may still be coming, how long and how much to read and discard. */
  static final int DRAIN_MILLIS = 5_000;
  static final int DRAIN_BYTES = 4 * 1024 * 1024;

  private static final String TEXT = "text/plain; charset=utf-8";
  /** The first byte of a TLS handshake record, which no HTTP request starts with. */
  private static final byte TLS_HANDSHAKE_RECORD = 0x16;

  private final ServerSocket serverSocket;
  private final EndpointSecurity security;
  /** The connections holding a slot, oldest first; guarded by itself. */
  private final List<Connection> connections = new ArrayList<>(MAX_CONNECTIONS);
  // Made by serve: binding runs in the agent's premain, before the host's main, and does no more than bind.
  private ResyncMetrics metrics;
  private ThreadPoolExecutor handlers;
  private ScheduledThreadPoolExecutor deadlines;
  private volatile boolean closed;

  private MetricsServer(ServerSocket serverSocket, EndpointSecurity security) {
    this.serverSocket = serverSocket;
    this.security = security;
  }

  /** One accepted connection: its socket (the TLS one once made) and whether it is being answered. */
  private static final class Connection {
    final Socket accepted;
    volatile Socket socket;
    volatile boolean answering;

    Connection(Socket accepted) {
      this.accepted = accepted;
      this.socket = accepted;
    }
  }

  /**
   * Binds and starts the endpoint.
   *
   * @throws IOException when the address cannot be bound (port in use, unknown host)
   */
  public static MetricsServer start(String host, int port, ResyncMetrics metrics) throws IOException {
    return start(host, port, metrics, EndpointSecurity.NONE);
  }

  /** Binds and starts the endpoint with TLS or basic authentication as {@code security} asks. */
  public static MetricsServer start(String host, int port, ResyncMetrics metrics, EndpointSecurity security) throws IOException {
    MetricsServer server = bind(host, port, security);
    server.serve(metrics);
    return server;
  }

  /**
   * Binds the address without answering yet, so that a start-up can report the port (or why it is
   * taken) at once and build the registry later. Until {@link #serve}, a client's connection waits
   * in the listen backlog: nothing is refused.
   *
   * @throws IOException when the address cannot be bound (port in use, unknown host)
   */
  public static MetricsServer bind(String host, int port) throws IOException {
    return bind(host, port, EndpointSecurity.NONE);
  }

  /** {@link #bind(String, int)}, to serve as {@code security} asks. */
  public static MetricsServer bind(String host, int port, EndpointSecurity security) throws IOException {
    ServerSocket serverSocket = new ServerSocket();
    try {
      serverSocket.bind(new InetSocketAddress(host, port), 50);
    } catch (IOException | RuntimeException e) {
      closeQuietly(serverSocket);
      throw e instanceof IOException io ? io : new IOException(e);
    }
    return new MetricsServer(serverSocket, security);
  }

  /** Starts answering on the bound address from {@code metrics}; later calls, or after close, do nothing. */
  public synchronized void serve(ResyncMetrics metrics) {
    if (this.metrics != null || closed) {
      return;
    }
    this.metrics = metrics;
    metrics.endpointRefusals();
    String prefix = "resync-meter-http-" + serverSocket.getLocalPort();
    // As many handler threads as connection slots, so an accepted connection never waits for one;
    // they end after a minute without work.
    handlers =
        new ThreadPoolExecutor(
            MAX_CONNECTIONS, MAX_CONNECTIONS, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), daemons(prefix + "-handler-"));
    handlers.allowCoreThreadTimeOut(true);
    deadlines = new ScheduledThreadPoolExecutor(1, daemons(prefix + "-deadline-"));
    deadlines.setRemoveOnCancelPolicy(true);
    Thread acceptor = new Thread(this::acceptLoop, prefix + "-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** The port actually bound (useful when asked for port 0). */
  public int port() {
    return serverSocket.getLocalPort();
  }

  public String host() {
    return ((InetSocketAddress) serverSocket.getLocalSocketAddress()).getHostString();
  }

  /** {@code http} or {@code https}. */
  public String scheme() {
    return security.scheme();
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(serverSocket);
    synchronized (this) {
      if (handlers == null) {
        return;
      }
    }
    synchronized (connections) {
      connections.forEach(connection -> closeQuietly(connection.accepted));
    }
    handlers.shutdownNow();
    deadlines.shutdownNow();
  }

  private void acceptLoop() {
    while (!closed) {
      Socket socket;
      try {
        socket = serverSocket.accept();
      } catch (Throwable t) {
        if (!closed) {
          pause(); // e.g. out of file descriptors: try again later rather than spin
        }
        continue;
      }
      Connection connection = new Connection(socket);
      try {
        if (!takeSlot(connection)) {
          metrics.endpointRefused(Refusal.TOO_MANY_CONNECTIONS);
          if (!security.tls()) {
            // A fresh socket's send buffer takes this small answer without blocking.
            respond(socket.getOutputStream(), 503, TEXT, "Too many connections; try again later\n", true, null);
          }
          closeQuietly(socket);
          continue;
        }
        handlers.execute(() -> serve(connection));
      } catch (Throwable t) {
        release(connection);
      }
    }
  }

  /**
   * A slot for {@code connection}: a free one, or else that of the oldest connection that has not sent
   * a whole request, which is closed. False when every slot is answering a request.
   */
  private boolean takeSlot(Connection connection) {
    Connection idle = null;
    synchronized (connections) {
      if (connections.size() >= MAX_CONNECTIONS) {
        for (Connection held : connections) {
          if (!held.answering) {
            idle = held;
            break;
          }
        }
        if (idle == null) {
          return false;
        }
        connections.remove(idle);
      }
      connections.add(connection);
    }
    if (idle != null) {
      metrics.endpointRefused(Refusal.IDLE_CLOSED);
      // The TCP socket, not the TLS one: that would first take the TLS locks its own thread may hold in a
      // handshake, and this is the acceptor. Its thread's read then ends at once.
      closeQuietly(idle.accepted);
    }
    return true;
  }

  private void serve(Connection connection) {
    Future<?> deadline = null;
    try {
      deadline = deadlines.schedule(() -> closeQuietly(connection.accepted), CONNECTION_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
      long headDeadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HEAD_TIMEOUT_MILLIS);
      if (security.tls() && !handshake(connection, headDeadline)) {
        return;
      }
      exchange(connection, headDeadline);
    } catch (Throwable t) {
      // The client went away, timed out or sent something we refused: that connection only ends.
    } finally {
      if (deadline != null) {
        deadline.cancel(false);
      }
      release(connection);
    }
  }

  /** The TLS handshake, within the head's time; false (and counted) when it fails. */
  private boolean handshake(Connection connection, long headDeadline) throws IOException {
    SSLSocket tls = (SSLSocket) security.accepted(connection.accepted);
    connection.socket = tls;
    try {
      tls.setSoTimeout(remainingMillis(headDeadline));
      tls.startHandshake();
      return true;
    } catch (IOException e) {
      if (stillHeld(connection)) {
        metrics.endpointRefused(Refusal.TLS_HANDSHAKE);
      }
      return false;
    }
  }

  private boolean stillHeld(Connection connection) {
    synchronized (connections) {
      return connections.contains(connection);
    }
  }

  private void release(Connection connection) {
    synchronized (connections) {
      connections.remove(connection);
    }
    closeQuietly(connection.socket);
    closeQuietly(connection.accepted);
  }

  /** Reads one request head, answers it, and drains what the client may still be sending. */
  private void exchange(Connection connection, long headDeadline) throws IOException {
    Socket socket = connection.socket;
    InputStream in = socket.getInputStream();
    OutputStream out = socket.getOutputStream();
    byte[] bytes = new byte[MAX_HEAD_BYTES];
    int length = 0;
    int end = -1;
    while (end < 0) {
      if (length == bytes.length) {
        boolean longRequestLine = !HttpRequestHead.hasLineEnd(bytes, length);
        metrics.endpointRefused(Refusal.BAD_REQUEST);
        refuse(socket, longRequestLine ? 414 : 431, longRequestLine ? "Request line too long\n" : "Request header too large\n");
        return;
      }
      int read;
      try {
        socket.setSoTimeout(remainingMillis(headDeadline));
        read = in.read(bytes, length, bytes.length - length);
      } catch (SocketTimeoutException e) {
        if (length > 0) {
          metrics.endpointRefused(Refusal.BAD_REQUEST);
          refuse(socket, 408, "Request timeout\n");
        }
        return;
      }
      if (read < 0) {
        if (length > 0) {
          metrics.endpointRefused(Refusal.BAD_REQUEST);
          respond(out, 400, TEXT, "Incomplete request\n", true, null);
        }
        return;
      }
      if (length == 0 && !security.tls() && bytes[0] == TLS_HANDSHAKE_RECORD) {
        // a TLS client on the plain port: no request line will come, so it is answered now, not at the timeout
        metrics.endpointRefused(Refusal.BAD_REQUEST);
        refuse(socket, 400, "This port serves plain HTTP, not TLS: use http://\n");
        return;
      }
      length += read;
      end = HttpRequestHead.end(bytes, length);
    }
    HttpRequestHead request;
    try {
      request = HttpRequestHead.parse(bytes, end);
    } catch (HttpRequestHead.Refusal refusal) {
      metrics.endpointRefused(Refusal.BAD_REQUEST);
      refuse(socket, refusal.status, refusal.getMessage() + "\n");
      return;
    }
    Refusal unauthorized = security.refusal(request.authorization());
    if (unauthorized != null) {
      // Before anything else, whatever the path: without credentials the endpoint says nothing.
      metrics.endpointRefused(unauthorized);
      respond(out, 401, TEXT, "Unauthorized\n", true, "WWW-Authenticate: Basic realm=\"resync-meter\", charset=\"UTF-8\"");
      if (request.bodyAnnounced() || length > end) {
        drain(socket);
      }
      return;
    }
    connection.answering = true;
    boolean head = request.method().equals("HEAD");
    boolean withBody = !head;
    if (!request.path().equals("/metrics")) {
      respond(out, 404, TEXT, "Not found: only /metrics is served\n", withBody, null);
    } else if (!request.method().equals("GET") && !head) {
      respond(out, 405, TEXT, "Method not allowed\n", true, "Allow: GET, HEAD");
    } else {
      ResyncMetrics.Scrape scrape;
      try {
        scrape = metrics.scrape(request.accept());
      } catch (RuntimeException e) {
        respond(out, 500, TEXT, "The scrape failed\n", withBody, null);
        return;
      }
      respond(out, 200, scrape.contentType(), scrape.body(), withBody, null);
    }
    connection.answering = false;
    if (request.bodyAnnounced() || length > end) {
      drain(socket);
    }
  }

  /** Answers with an error and drains: the client may still be sending the rest of its request. */
  private static void refuse(Socket socket, int status, String body) throws IOException {
    respond(socket.getOutputStream(), status, TEXT, body, true, null);
    drain(socket);
  }

  /**
   * Closing a socket with unread bytes in it sends a reset, which can destroy the response before the
   * client reads it. So: end our side, then read and discard for a bounded time and amount.
   */
  private static void drain(Socket socket) throws IOException {
    socket.shutdownOutput();
    InputStream in = socket.getInputStream();
    byte[] discard = new byte[8192];
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DRAIN_MILLIS);
    for (int drained = 0; drained < DRAIN_BYTES; ) {
      socket.setSoTimeout(remainingMillis(deadline));
      int read = in.read(discard);
      if (read < 0) {
        return;
      }
      drained += read;
    }
  }

  private static int remainingMillis(long deadlineNanos) throws SocketTimeoutException {
    long remaining = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
    if (remaining <= 0) {
      throw new SocketTimeoutException("deadline passed");
    }
    return (int) remaining;
  }

  private static void respond(
      OutputStream out, int status, String contentType, String body, boolean withBody, String extraHeader)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    StringBuilder head = new StringBuilder(160);
    head.append("HTTP/1.1 ").append(status).append(' ').append(reason(status)).append("\r\n");
    head.append("Date: ").append(HttpDate.FORMAT.format(ZonedDateTime.now(ZoneOffset.UTC))).append("\r\n");
    head.append("Content-Type: ").append(contentType).append("\r\n");
    head.append("Content-Length: ").append(bytes.length).append("\r\n");
    if (extraHeader != null) {
      head.append(extraHeader).append("\r\n");
    }
    head.append("Connection: close\r\n\r\n");
    byte[] headBytes = head.toString().getBytes(StandardCharsets.ISO_8859_1);
    if (withBody && bytes.length <= 64 * 1024) {
      // One write for small answers: header and body in the same segment.
      byte[] all = new byte[headBytes.length + bytes.length];
      System.arraycopy(headBytes, 0, all, 0, headBytes.length);
      System.arraycopy(bytes, 0, all, headBytes.length, bytes.length);
      out.write(all);
    } else {
      out.write(headBytes);
      if (withBody) {
        out.write(bytes);
      }
    }
    out.flush();
  }

  /** Made on the first answer, not when the class loads: binding loads it before the host's main. */
  private static final class HttpDate {
    static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US);
  }

  private static String reason(int status) {
    return switch (status) {
      case 200 -> "OK";
      case 400 -> "Bad Request";
      case 401 -> "Unauthorized";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 408 -> "Request Timeout";
      case 414 -> "URI Too Long";
      case 431 -> "Request Header Fields Too Large";
      case 500 -> "Internal Server Error";
      case 503 -> "Service Unavailable";
      case 505 -> "HTTP Version Not Supported";
      default -> "Error";
    };
  }

  private static ThreadFactory daemons(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  private static void pause() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void closeQuietly(Closeable closeable) {
    try {
      closeable.close();
    } catch (IOException | RuntimeException ignored) {
      // nothing to do: it is closed or was never open
    }
  }
}
