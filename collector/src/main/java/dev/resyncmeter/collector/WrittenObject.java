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
    int path = url.indexOf('/', scheme < 0 ? 0 : scheme + 3);
    if (path < 0) {
      return null;
    }
    int end = url.length();
    for (int i = path; i < url.length(); i++) {
      if (url.charAt(i) == '?' || url.charAt(i) == '#') {
        end = i;
        break;
      }
    }
    String[] segments = url.substring(path + 1, end).split("/");
    int at = 0;
    while (at < segments.length && !segments[at].equals("api") && !segments[at].equals("apis")) {
      at++; // a proxy's prefix
    }
    if (at == segments.length) {
      return null;
    }
    at += segments[at].equals("api") ? 2 : 3; // past the group and version
    int left = segments.length - at;
    if (left >= 2 && segments[at].equals("namespaces")) {
      if (left >= 4) {
        return key(segments[at + 1], segments[at + 3]);
      }
      // the namespace itself, or its status or finalize; else a collection in it
      return left == 2 || segments[at + 2].equals("status") || segments[at + 2].equals("finalize") ? key(null, segments[at + 1]) : null;
    }
    return left >= 2 ? key(null, segments[at + 1]) : null;
  }

  /** {@code namespace/name}, {@code /name} for a cluster-scoped object; null without a name. */
  public static String key(String namespace, String name) {
    if (name == null) {
      return null;
    }
    return (namespace == null ? "" : namespace) + "/" + name;
  }
}
