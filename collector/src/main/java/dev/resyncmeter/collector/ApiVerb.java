package dev.resyncmeter.collector;

import java.util.Locale;

/**
 * The Kubernetes API verb of an HTTP request, as the API server names it: from the method, whether the
 * path names one object or a collection, and whether it asks to watch. It runs on every request, so
 * it reads the path where it is, allocating nothing.
 */
public enum ApiVerb {
  GET,
  LIST,
  WATCH,
  CREATE,
  UPDATE,
  PATCH,
  DELETE,
  DELETECOLLECTION;

  private final String label = name().toLowerCase(Locale.ROOT);

  public String label() {
    return label;
  }

  /** Whether a request with this verb writes: create, update, patch, delete, deletecollection. */
  public boolean writes() {
    return ordinal() >= CREATE.ordinal();
  }

  /**
   * The verb of {@code method} on {@code path} (the URL's path, without query); {@code watchQuery}
   * is true when the query says {@code watch=true} (or 1). A path outside {@code /api} and
   * {@code /apis} (discovery, {@code /version}) names one thing: a GET there is a get.
   */
  public static ApiVerb of(String method, String path, boolean watchQuery) {
    return of(method, path, 0, path.length(), watchQuery);
  }

  /** The verb of {@code method} on a whole URL ({@code http://host:port/path?query}). */
  public static ApiVerb ofUrl(String method, String url) {
    int scheme = url.indexOf("://");
    int pathStart = url.indexOf('/', scheme < 0 ? 0 : scheme + 3);
    if (pathStart < 0) {
      return of(method, url, 0, 0, false);
    }
    int end = url.indexOf('#', pathStart);
    end = end < 0 ? url.length() : end;
    int query = url.indexOf('?', pathStart);
    if (query < 0 || query > end) {
      return of(method, url, pathStart, end, false);
    }
    return of(method, url, pathStart, query, asksToWatch(url, query + 1, end));
  }

  /** The verb of {@code method} on the path from {@code from} to {@code to} in {@code text}. */
  private static ApiVerb of(String method, String text, int from, int to, boolean watchQuery) {
    String upper = isUpperCase(method) ? method : method.toUpperCase(Locale.ROOT);
    switch (upper) {
      case "POST":
        return CREATE;
      case "PUT":
        return UPDATE;
      case "PATCH":
        return PATCH;
      default:
        int shape = PathShape.of(text, from, to);
        if (upper.equals("DELETE")) {
          return (shape & PathShape.COLLECTION) != 0 ? DELETECOLLECTION : DELETE;
        }
        if (watchQuery || (shape & PathShape.WATCH) != 0) {
          return WATCH;
        }
        return (shape & PathShape.COLLECTION) != 0 ? LIST : GET;
    }
  }

  private static boolean isUpperCase(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (Character.isLowerCase(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /** Whether the query in {@code url} from {@code from} to {@code to} holds {@code watch=true} or {@code watch=1}. */
  private static boolean asksToWatch(String url, int from, int to) {
    int i = from;
    while (i < to) {
      int end = url.indexOf('&', i);
      if (end < 0 || end > to) {
        end = to;
      }
      if ((end - i == 10 && url.startsWith("watch=true", i)) || (end - i == 7 && url.startsWith("watch=1", i))) {
        return true;
      }
      i = end + 1;
    }
    return false;
  }

  /** A URL's path, from {@code from} to {@code to} in a text, read segment by segment, once. */
  private static final class PathShape {

    static final int COLLECTION = 1;
    static final int WATCH = 2;

    /**
     * Whether the path is a deprecated watch path ({@code /api/v1/watch/...},
     * {@code /apis/<group>/<version>/watch/...}) and whether it ends at a collection:
     * {@code /api/v1/pods}, {@code /api/v1/namespaces/ns/configmaps}, {@code /apis/g/v/namespaces/ns/widgets}.
     * One object is a name after the resource ({@code .../configmaps/name}, a subresource after it
     * is still that object's); {@code /api/v1/namespaces/ns} is the namespace object itself, and
     * a group's or version's root (discovery) one document. Outside {@code /api} and {@code /apis}: one thing.
     */
    static int of(String text, int from, int to) {
      int start = skipSlashes(text, from, to);
      if (start == to) {
        return 0;
      }
      int end = endOf(text, start, to);
      boolean core = is(text, start, end, "api");
      if (!core && !is(text, start, end, "apis")) {
        return 0;
      }
      // past the version (core) or the group and version
      for (int skip = core ? 1 : 2; skip > 0; skip--) {
        start = skipSlashes(text, end, to);
        if (start == to) {
          return 0;
        }
        end = endOf(text, start, to);
      }
      start = skipSlashes(text, end, to);
      if (start == to) {
        return 0;
      }
      end = endOf(text, start, to);
      int watch = 0;
      if (is(text, start, end, "watch")) {
        watch = WATCH;
        start = skipSlashes(text, end, to);
        if (start == to) {
          return watch;
        }
        end = endOf(text, start, to);
      }
      boolean namespaces = is(text, start, end, "namespaces");
      // the segments left, from this one, up to 4 (more say the same: one object)
      int left = 1;
      int thirdStart = -1;
      int thirdEnd = -1;
      int next = skipSlashes(text, end, to);
      while (next < to && left < 4) {
        int nextEnd = endOf(text, next, to);
        left++;
        if (left == 3) {
          thirdStart = next;
          thirdEnd = nextEnd;
        }
        next = skipSlashes(text, nextEnd, to);
      }
      boolean collection =
          left == 1
              || (namespaces && left == 3 && !is(text, thirdStart, thirdEnd, "status") && !is(text, thirdStart, thirdEnd, "finalize"));
      return watch | (collection ? COLLECTION : 0);
    }

    private static int skipSlashes(String text, int i, int to) {
      while (i < to && text.charAt(i) == '/') {
        i++;
      }
      return i;
    }

    private static int endOf(String text, int start, int to) {
      int end = text.indexOf('/', start);
      return end < 0 || end > to ? to : end;
    }

    private static boolean is(String text, int start, int end, String expected) {
      return end - start == expected.length() && text.startsWith(expected, start);
    }

    private PathShape() {}
  }
}
