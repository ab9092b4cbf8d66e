package dev.resyncmeter.report;

import java.io.IOException;
import java.net.UnknownHostException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.Locale;

/** What went wrong reading a file or an endpoint, in words for the end of one error line: never a Java class name. */
public final class Problems {

  private Problems() {}

  public static String inWords(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof CharacterCodingException) {
      return "not UTF-8 text";
    }
    if (e instanceof UnknownHostException) {
      return "no such host";
    }
    // The operating system's words ("Connection refused", "Is a directory"), without any class name in front.
    String words = e instanceof FileSystemException f && f.getReason() != null ? f.getReason() : e.getMessage();
    words = words == null ? "" : words.replaceAll("([a-z_$][\\w$]*\\.)+[A-Z][\\w$]*: ", "").strip();
    return words.isEmpty() ? "input/output error" : words.substring(0, 1).toLowerCase(Locale.ROOT) + words.substring(1);
  }
}
