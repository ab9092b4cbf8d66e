package dev.resyncmeter.examples.apiserver;

import com.google.gson.JsonObject;

/** A Kubernetes error: the HTTP side sends its {@code v1 Status}; the Java API translates it. */
final class StatusException extends RuntimeException {

  final int code;
  final JsonObject status;

  StatusException(int code, String reason, String message, String name) {
    super(message, null, false, false);
    this.code = code;
    this.status = Wire.status(code, reason, message, name);
  }

  static StatusException notFound(String name) {
    return new StatusException(404, "NotFound", "configmaps \"" + name + "\" not found", name);
  }
}
