package dev.resyncmeter.report;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code --selector} of {@code report --prometheus}: label matchers, with or without braces,
 * checked here as PromQL's lexer and parser read them (label names bare or quoted, the four
 * operators, values in double, single or back quotes and their escapes, commas) before anything is
 * queried, so that a mistake is shown in the user's own selector, with where it is, rather than as a
 * position in the query the report builds around it. What only the server can judge (a regular
 * expression's syntax, a server that parses otherwise) comes back in its words, its position moved
 * into the selector when it lies there ({@link #rejected}).
 */
final class Selector {

  /** Prometheus' parse error: {@code 1:55: parse error: ...}, behind the API's {@code invalid parameter "query": }. */
  private static final Pattern PARSE_ERROR = Pattern.compile("(?:invalid parameter \"query\": )?(\\d+):(\\d+): parse error: (.*)", Pattern.DOTALL);

  /** The selector as given. */
  final String text;
  /** The matchers inside the braces, without the space around them; empty for every series. */
  final String matchers;
  /** Where {@link #matchers} begins in {@link #text}. */
  final int matchersAt;

  private int at;

  private Selector(String text, String matchers, int matchersAt) {
    this.text = text;
    this.matchers = matchers;
    this.matchersAt = matchersAt;
  }

  /** No selector: every series. */
  static final Selector NONE = new Selector("", "", 0);

  /** The selector's matchers, or what is wrong with it and where. */
  static Selector parse(String text) throws UsageException {
    return new Selector(text, "", 0).check();
  }

  // ---- the syntax, as PromQL's lexer and parser have it ---------------------------------------------

  private Selector check() throws UsageException {
    int length = text.length();
    at = 0;
    space();
    boolean braced = at < length && text.charAt(at) == '{';
    int open = at;
    if (braced) {
      at++;
      space();
    }
    int first = at;
    while (true) {
      if (at >= length) {
        if (braced) {
          throw wrong(length, "a } is missing to close the { at character " + (open + 1));
        }
        break;
      }
      if (text.charAt(at) == '}') {
        if (!braced) {
          throw wrong(at, "this } closes no {");
        }
        at++;
        break;
      }
      matcher();
      space();
      if (at < length && text.charAt(at) == ',') {
        at++;
        space();
        if (at < length && text.charAt(at) == ',') {
          throw wrong(at, "a label matcher is missing after the comma");
        }
        continue; // a comma may end the list
      }
      if (at < length && text.charAt(at) != '}') {
        throw wrong(at, text.charAt(at) == '{'
            ? "this { opens a second selector: give one, such as '{namespace=\"payments\"}'"
            : "a comma is missing between two label matchers");
      }
    }
    int end = braced ? at - 1 : length;
    space();
    if (at < length) {
      throw wrong(at, "nothing may follow the selector's }: give label matchers only, such as '{namespace=\"payments\"}'");
    }
    return new Selector(text, text.substring(first, end).strip(), first);
  }

  /** {@code name op value}, the name bare or quoted. */
  private void matcher() throws UsageException {
    int start = at;
    char c = text.charAt(at);
    String name;
    if (isAlpha(c)) {
      while (at < text.length() && (isAlpha(text.charAt(at)) || Character.isDigit(text.charAt(at)) && text.charAt(at) < 128)) {
        at++;
      }
      name = text.substring(start, at);
    } else if (c == '"' || c == '\'' || c == '`') {
      string();
      name = text.substring(start, at);
    } else {
      throw wrong(start, "a label name is expected here, such as namespace in namespace=\"payments\"");
    }
    space();
    String op = operator();
    if (op == null) {
      if (at < text.length() && text.charAt(at) == '{' && isAlpha(c)) {
        throw metricName(start, name, at);
      }
      boolean quoted = c == '"' || c == '\'' || c == '`';
      if (quoted && (at >= text.length() || text.charAt(at) == ',' || text.charAt(at) == '}')) {
        throw metricName(start, name, -1); // a quoted name alone is a metric name (Prometheus 3)
      }
      throw wrong(at, "=, !=, =~ or !~ is expected after the label name " + name);
    }
    if (name.equals("__name__") || name.matches("[\"'`]__name__[\"'`]")) {
      throw wrong(start, "a matcher of __name__ picks one of the many metrics the report reads: give label matchers only, such as '{namespace=\"payments\"}'");
    }
    space();
    if (at >= text.length()) {
      throw wrong(at, "a value in quotes is missing after " + name + op);
    }
    char q = text.charAt(at);
    if (q != '"' && q != '\'' && q != '`') {
      int bare = at;
      while (at < text.length() && ",}{ \t\r\n".indexOf(text.charAt(at)) < 0) {
        at++;
      }
      String value = text.substring(bare, at);
      throw wrong(bare, value.isEmpty()
          ? "a value in quotes is missing after " + name + op
          : "a label's value goes in quotes: " + name + op + "\"" + value + "\"");
    }
    string();
  }

  /** The operator at {@code at}, taken; null when there is none. */
  private String operator() {
    for (String op : new String[] {"=~", "!~", "!=", "="}) {
      if (text.startsWith(op, at)) {
        at += op.length();
        return op;
      }
    }
    return null;
  }

  /** A string in double, single or back quotes, with PromQL's escapes in the first two. */
  private void string() throws UsageException {
    int open = at;
    char quote = text.charAt(at++);
    while (true) {
      if (at >= text.length() || quote != '`' && text.charAt(at) == '\n') {
        throw wrong(open, "this " + quote + " has no closing " + quote);
      }
      char c = text.charAt(at);
      if (c == quote) {
        at++;
        return;
      }
      if (c == '\\' && quote != '`') {
        escape(quote);
      } else {
        at++;
      }
    }
  }

  /** Go's escapes, as PromQL's lexer takes them: one of abfnrtv\ and the quote, or 3 octal, x and 2, u and 4, U and 8 hex digits. */
  private void escape(char quote) throws UsageException {
    int backslash = at++;
    if (at >= text.length()) {
      throw wrong(backslash, "this \\ escapes nothing");
    }
    char c = text.charAt(at);
    int digits;
    int base;
    if ("abfnrtv\\".indexOf(c) >= 0 || c == quote) {
      at++;
      return;
    } else if (c >= '0' && c <= '7') {
      digits = 3;
      base = 8;
    } else if (c == 'x' || c == 'u' || c == 'U') {
      digits = c == 'x' ? 2 : c == 'u' ? 4 : 8;
      base = 16;
      at++;
    } else {
      throw wrong(backslash, "\\" + c + " is no escape PromQL knows: write \\\\" + c + " for a backslash (as a regular expression needs), or quote the value with `back quotes`");
    }
    long value = 0;
    for (int i = 0; i < digits; i++) {
      int d = at < text.length() ? Character.digit(text.charAt(at), base) : -1;
      if (d < 0) {
        throw wrong(backslash, "the escape at this \\ needs " + digits + (base == 8 ? " octal" : " hex") + " digits");
      }
      value = value * base + d;
      at++;
    }
    if (base == 8 && value > 255 || value > Character.MAX_CODE_POINT || value >= 0xD800 && value < 0xE000 && c != 'x') {
      throw wrong(backslash, "the escape at this \\ is no Unicode character");
    }
  }

  private void space() {
    while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) {
      at++;
    }
  }

  private static boolean isAlpha(char c) {
    return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z';
  }

  private UsageException metricName(int start, String name, int brace) {
    String instead = brace < 0 ? "" : ", such as '" + text.substring(brace).strip() + "'";
    return wrong(start, "a metric name (" + name + ") picks one of the many metrics the report reads: give label matchers only" + instead);
  }

  private UsageException wrong(int index, String problem) {
    return new UsageException("--selector " + where(index) + ": " + problem);
  }

  // ---- where, in the user's words -------------------------------------------------------------------

  /** {@code '{namespace=payments}' at character 12 ('payments}')}, or {@code at its end}. */
  String where(int index) {
    String shown = "'" + text.replaceAll("[\\r\\n\\t]", " ") + "'";
    if (index >= text.length()) {
      return shown + " at its end";
    }
    String rest = text.substring(index).replaceAll("[\\r\\n\\t]", " ");
    return shown + " at character " + (index + 1) + " ('" + (rest.length() > 20 ? rest.substring(0, 20) + "..." : rest) + "')";
  }

  /**
   * What the server said of a query it rejected ({@code bad_data}): its error with the position
   * moved from {@code query} into the selector, when the server gives one that lies there.
   */
  String rejected(String query, String error) {
    Matcher m = PARSE_ERROR.matcher(error);
    if (!matchers.isEmpty() && m.matches()) {
      int inQuery = charIndex(query, Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
      int matchersInQuery = query.lastIndexOf("," + matchers + "}[") + 1;
      if (inQuery >= 0 && matchersInQuery > 0 && inQuery >= matchersInQuery && inQuery <= matchersInQuery + matchers.length()) {
        return "--selector " + where(matchersAt + inQuery - matchersInQuery) + ": " + m.group(3);
      }
    }
    return "the query" + (matchers.isEmpty() ? "" : " of --selector {" + matchers + "}") + ": " + error;
  }

  /** The query out of an {@code /api/v1/query?query=...} URL. */
  static String queryOf(String url) {
    Matcher m = Pattern.compile("[?&]query=([^&]*)").matcher(url);
    return m.find() ? URLDecoder.decode(m.group(1), StandardCharsets.UTF_8) : "";
  }

  /**
   * The index of the character at Prometheus' {@code line:column} in {@code query}: lines from 1,
   * columns in bytes of UTF-8 from 1, as its parser counts them; -1 when there is none.
   */
  static int charIndex(String query, int line, int column) {
    byte[] bytes = query.getBytes(StandardCharsets.UTF_8);
    int offset = 0;
    for (int l = 1; l < line; l++) {
      while (offset < bytes.length && bytes[offset] != '\n') {
        offset++;
      }
      if (offset >= bytes.length) {
        return -1;
      }
      offset++;
    }
    offset += column - 1;
    if (column < 1 || offset > bytes.length) {
      return -1;
    }
    return new String(bytes, 0, offset, StandardCharsets.UTF_8).length();
  }
}
