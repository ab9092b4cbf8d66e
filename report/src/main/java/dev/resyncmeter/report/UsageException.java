package dev.resyncmeter.report;

/** A command line the report cannot use: its message is the one line the user sees, before the usage. */
final class UsageException extends Exception {
  UsageException(String message) {
    super(message);
  }
}
