package dev.resyncmeter.collector;

import java.util.Locale;

/**
 * The Kubernetes API verb of an HTTP request, as the API server names it: from the method, whether the
 * path names one object or a collection, and whether it asks to watch.
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

  private static final java.util.Set<String> NAMESPACE_SUBRESOURCES = java.util.Set.of("status", "finalize");

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
    switch (method.toUpperCase(Locale.ROOT)) {
      case "POST":
        return CREATE;
      case "PUT":
        return UPDATE;
      case "PATCH":
        return PATCH;
      case "DELETE":
        return namesCollection(path) ? DELETECOLLECTION : DELETE;
      default:
        if (watchQuery || path.startsWith("/api/v1/watch/") || isLegacyWatchOfGroup(path)) {
          return WATCH;
        }
        return namesCollection(path) ? LIST : GET;
    }
  }

  /** {@code /apis/<group>/<version>/watch/...}: the deprecated watch paths. */
  private static boolean isLegacyWatchOfGroup(String path) {
    String[] segments = segments(path);
    return segments.length > 3 && segments[0].equals("apis") && segments[3].equals("watch");
  }

  /**
   * Whether a resource path ends at a collection: {@code /api/v1/pods},
   * {@code /api/v1/namespaces/ns/configmaps}, {@code /apis/g/v/namespaces/ns/widgets}. One object
   * is a name after the resource ({@code .../configmaps/name}, a subresource after it is still that
   * object's); {@code /api/v1/namespaces/ns} is the namespace object itself.
   */
  static boolean namesCollection(String path) {
    String[] segments = segments(path);
    int resource;
    if (segments.length >= 2 && segments[0].equals("api")) {
      resource = 2;
    } else if (segments.length >= 3 && segments[0].equals("apis")) {
      resource = 3;
    } else {
      return false;
    }
    if (segments.length > resource && segments[resource].equals("watch")) {
      resource++;
    }
    if (segments.length > resource + 2 && segments[resource].equals("namespaces")) {
      if (segments.length == resource + 3 && NAMESPACE_SUBRESOURCES.contains(segments[resource + 2])) {
        return false; // a namespace's own status or finalize
      }
      resource += 2;
    }
    // the group's or version's root (discovery) is one document, not a collection
    return segments.length == resource + 1;
  }

  private static String[] segments(String path) {
    String trimmed = path;
    while (trimmed.startsWith("/")) {
      trimmed = trimmed.substring(1);
    }
    while (trimmed.endsWith("/")) {
      trimmed = trimmed.substring(0, trimmed.length() - 1);
    }
    return trimmed.isEmpty() ? new String[0] : trimmed.split("/");
  }
}
