package dev.resyncmeter.collector.endpoint;

import java.util.Locale;

/** Why the endpoint refused a connection or a request: the {@code reason} of {@code resync_meter_endpoint_refusals_total}. */
public enum Refusal {
  /** Basic authentication is on and the request carried no credentials. */
  NO_CREDENTIALS,
  /** Basic authentication is on and the credentials were not the right ones. */
  WRONG_CREDENTIALS,
  /** The TLS handshake failed: plain HTTP on the TLS port, no or an untrusted client certificate, no common protocol. */
  TLS_HANDSHAKE,
  /** The request head was malformed, too large, or did not arrive in time. */
  BAD_REQUEST,
  /** A connection that had sent no whole request was closed to make room for a new one. */
  IDLE_CLOSED,
  /** Every connection slot was busy answering: 503. */
  TOO_MANY_CONNECTIONS;

  /** The label value. */
  public String reason() {
    return name().toLowerCase(Locale.ROOT);
  }
}
