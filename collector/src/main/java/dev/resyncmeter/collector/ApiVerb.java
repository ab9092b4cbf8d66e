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

  /**
   * The verb of {@code method} on {@code path} (the URL's path, without query); {@code watchQuery}
   * is true when the query says {@code watch=true} (or 1). A path outside {@code /api} and
   * {@code /apis} (discovery, {@code /version}) names one thing: a GET there is a get.
   */
  public static ApiVerb of(String method, String path, boolean watchQuery) {
    return of(method, new Path(path, 0, path.length()), watchQuery);
  }

  /** The verb of {@code method} on a whole URL ({@code http://host:port/path?query}). */
  public static ApiVerb ofUrl(String method, String url) {
    int scheme = url.indexOf("://");
    int pathStart = url.indexOf('/', scheme < 0 ? 0 : scheme + 3);
    if (pathStart < 0) {
      return of(method, new Path(url, 0, 0), false);
    }
    int end = url.indexOf('#', pathStart);
    end = end < 0 ? url.length() : end;
    int query = url.indexOf('?', pathStart);
    if (query < 0 || query > end) {
      return of(method, new Path(url, pathStart, end), false);
    }
    return of(method, new Path(url, pathStart, query), asksToWatch(url, query + 1, end));
  }

  private static ApiVerb of(String method, Path path, boolean watchQuery) {
    String upper = isUpperCase(method) ? method : method.toUpperCase(Locale.ROOT);
    switch (upper) {
      case "POST":
        return CREATE;
      case "PUT":
        return UPDATE;
      case "PATCH":
        return PATCH;
      default:
        int shape = path.shape();
        if (upper.equals("DELETE")) {
          return (shape & Path.COLLECTION) != 0 ? DELETECOLLECTION : DELETE;
        }
        if (watchQuery || (shape & Path.WATCH) != 0) {
          return WATCH;
        }
        return (shape & Path.COLLECTION) != 0 ? LIST : GET;
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

  /** A URL's path, from {@code from} to {@code to} in {@code text}, read segment by segment, once. */
  private record Path(String text, int from, int to) {

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
    int shape() {
      int start = skipSlashes(from);
      if (start == to) {
        return 0;
      }
      int end = endOf(start);
      boolean core = is(start, end, "api");
      if (!core && !is(start, end, "apis")) {
        return 0;
      }
      // past the version (core) or the group and version
      for (int skip = core ? 1 : 2; skip > 0; skip--) {
        start = skipSlashes(end);
        if (start == to) {
          return 0;
        }
        end = endOf(start);
      }
      start = skipSlashes(end);
      if (start == to) {
        return 0;
      }
      end = endOf(start);
      int watch = 0;
      if (is(start, end, "watch")) {
        watch = WATCH;
        start = skipSlashes(end);
        if (start == to) {
          return watch;
        }
        end = endOf(start);
      }
      boolean namespaces = is(start, end, "namespaces");
      // the segments left, from this one, up to 4 (more say the same: one object)
      int left = 1;
      int thirdStart = -1;
      int thirdEnd = -1;
      int next = skipSlashes(end);
      while (next < to && left < 4) {
        int nextEnd = endOf(next);
        left++;
        if (left == 3) {
          thirdStart = next;
          thirdEnd = nextEnd;
        }
        next = skipSlashes(nextEnd);
      }
      boolean collection =
          left == 1
              || (namespaces && left == 3 && !is(thirdStart, thirdEnd, "status") && !is(thirdStart, thirdEnd, "finalize"));
      return watch | (collection ? COLLECTION : 0);
    }

    private int skipSlashes(int i) {
      while (i < to && text.charAt(i) == '/') {
        i++;
      }
      return i;
    }

    private int endOf(int start) {
      int end = text.indexOf('/', start);
      return end < 0 || end > to ? to : end;
    }

    private boolean is(int start, int end, String expected) {
      return end - start == expected.length() && text.startsWith(expected, start);
    }
  }
}
