package dev.resyncmeter.report;

import java.net.URI;

/**
 * The one check of a URL the report reads over HTTP, an agent's endpoint or a Prometheus server:
 * each refusal is one line that names the URL as given.
 */
final class HttpUrl {

  private HttpUrl() {}

  /** {@code url} when it is an http or https URL with a host and a port that can be; a refusal of another scheme names {@code example}. */
  static URI of(String url, String example) throws ReportException {
    URI uri;
    try {
      uri = URI.create(url);
    } catch (IllegalArgumentException e) {
      throw new ReportException("'" + url + "' is not a URL");
    }
    if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
      throw new ReportException("'" + url + "' is not an http URL such as " + example);
    }
    if (uri.getPort() > 65535) {
      throw new ReportException("'" + url + "' is not a URL: its port is above 65535");
    }
    return uri;
  }

  /** A server's base URL, under which the report adds a path of its own: as {@link #of}, and without a query or fragment. */
  static URI base(String url, String example) throws ReportException {
    URI uri = of(url, example);
    if (uri.getQuery() != null || uri.getFragment() != null) {
      throw new ReportException("'" + url + "' has a query or fragment: give the server's base URL, such as " + example);
    }
    return uri;
  }
}
