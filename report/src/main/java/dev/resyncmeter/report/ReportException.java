package dev.resyncmeter.report;

/** Input the report cannot use: its message is the one line the user sees. */
public final class ReportException extends Exception {
  public ReportException(String message) {
    super(message);
  }
}
