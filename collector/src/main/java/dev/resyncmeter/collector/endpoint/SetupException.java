package dev.resyncmeter.collector.endpoint;

/**
 * Why the endpoint cannot be set up as asked (a missing file, a bad key, a certificate that is not
 * its key's): the agent then serves nothing, and the message is its one line of why.
 */
public final class SetupException extends Exception {
  public SetupException(String message) {
    super(message);
  }
}
