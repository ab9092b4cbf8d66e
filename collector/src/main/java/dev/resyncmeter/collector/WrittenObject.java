package dev.resyncmeter.collector;

/**
 * An object as a write's answer (or an update's new object) names it: its namespace (null when
 * cluster-scoped), name, uid and resourceVersion; any of them null when not known.
 */
public record WrittenObject(String namespace, String name, String uid, String resourceVersion) {

  /** The key a write is known by while it is in flight, before its answer names the uid. */
  public String key() {
    return key(namespace, name);
  }

  /**
   * The key of the object a request to {@code url} writes ({@code .../namespaces/NS/PLURAL/NAME[/SUB]},
   * {@code .../PLURAL/NAME[/SUB]} when cluster-scoped, {@code .../namespaces/NS} for a namespace), or
   * null for a collection (a create) or a path that names no object of the API.
   */
  public static String keyOfUrl(String url) {
    int scheme = url.indexOf("://");
    int at = url.indexOf('/', scheme < 0 ? 0 : scheme + 3);
    int end = url.length();
    for (int i = at < 0 ? end : at; i < end; i++) {
      if (url.charAt(i) == '?' || url.charAt(i) == '#') {
        end = i;
      }
    }
    // past a proxy's prefix to "api/VERSION/" or "apis/GROUP/VERSION/"
    int api = at < 0 ? -1 : url.indexOf("/api/", at);
    int apis = at < 0 ? -1 : url.indexOf("/apis/", at);
    int from = api >= 0 && (apis < 0 || api < apis) ? skipSegments(url, api + 1, end, 2) : apis >= 0 ? skipSegments(url, apis + 1, end, 3) : -1;
    if (from < 0) {
      return null;
    }
    int[] bounds = new int[8]; // up to four segments after the group and version: start, end of each
    int segments = 0;
    for (int start = from; start < end && segments < 4; segments++) {
      int slash = url.indexOf('/', start);
      int stop = slash < 0 || slash > end ? end : slash;
      bounds[segments * 2] = start;
      bounds[segments * 2 + 1] = stop;
      start = stop + 1;
    }
    if (segments >= 2 && url.regionMatches(bounds[0], "namespaces", 0, bounds[1] - bounds[0]) && bounds[1] - bounds[0] == 10) {
      if (segments == 4) {
        return url.substring(bounds[2], bounds[3]) + "/" + url.substring(bounds[6], bounds[7]);
      }
      // the namespace itself, or its status or finalize; else a collection in it
      boolean namespaceItself = segments == 2 || url.startsWith("status", bounds[4]) || url.startsWith("finalize", bounds[4]);
      return namespaceItself ? "/" + url.substring(bounds[2], bounds[3]) : null;
    }
    return segments >= 2 ? "/" + url.substring(bounds[2], bounds[3]) : null;
  }

  /** The index after {@code count} segments from {@code from} (each ending in '/'), or -1 when the path ends first. */
  private static int skipSegments(String url, int from, int end, int count) {
    int at = from;
    for (int i = 0; i < count; i++) {
      int slash = url.indexOf('/', at);
      if (slash < 0 || slash >= end) {
        return -1;
      }
      at = slash + 1;
    }
    return at;
  }

  /** {@code namespace/name}, {@code /name} for a cluster-scoped object; null without a name. */
  public static String key(String namespace, String name) {
    if (name == null) {
      return null;
    }
    return (namespace == null ? "" : namespace) + "/" + name;
  }
}
