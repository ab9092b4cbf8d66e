package dev.resyncmeter.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict JSON reader for the answers of the Prometheus HTTP API: objects become maps (in their
 * order), arrays lists, numbers doubles, and the rest strings, booleans and null. The report has no
 * dependencies (it is inside the agent jar), hence its own.
 */
public final class Json {

  private final String text;
  private int at;

  private Json(String text) {
    this.text = text;
  }

  /** The value {@code text} holds; {@link NotJson} says where it stops being JSON. */
  public static Object parse(String text) throws NotJson {
    Json json = new Json(text);
    json.space();
    Object value = json.value();
    json.space();
    if (json.at != text.length()) {
      throw new NotJson("text after the JSON value at character " + json.at);
    }
    return value;
  }

  /** Text that is not JSON. */
  public static final class NotJson extends Exception {
    NotJson(String message) {
      super(message);
    }
  }

  private Object value() throws NotJson {
    if (at >= text.length()) {
      throw new NotJson("the text ends where a value should be");
    }
    char c = text.charAt(at);
    switch (c) {
      case '{' -> {
        return object();
      }
      case '[' -> {
        return array();
      }
      case '"' -> {
        return string();
      }
      default -> {
        if (text.startsWith("true", at)) {
          at += 4;
          return Boolean.TRUE;
        }
        if (text.startsWith("false", at)) {
          at += 5;
          return Boolean.FALSE;
        }
        if (text.startsWith("null", at)) {
          at += 4;
          return null;
        }
        return number();
      }
    }
  }

  private Map<String, Object> object() throws NotJson {
    Map<String, Object> object = new LinkedHashMap<>();
    commaSeparated('}', () -> {
      if (peek() != '"') {
        throw new NotJson("no member name at character " + at);
      }
      String name = string();
      space();
      expect(':');
      space();
      object.put(name, value());
    });
    return object;
  }

  private List<Object> array() throws NotJson {
    List<Object> array = new ArrayList<>();
    commaSeparated(']', () -> array.add(value()));
    return array;
  }

  /** Reading one member of an object or one element of an array. */
  private interface Item {
    void read() throws NotJson;
  }

  /** From the opening bracket to {@code close}: none, or items with commas between them. */
  private void commaSeparated(char close, Item item) throws NotJson {
    at++;
    space();
    if (peek() == close) {
      at++;
      return;
    }
    while (true) {
      space();
      item.read();
      space();
      if (peek() == ',') {
        at++;
      } else {
        expect(close);
        return;
      }
    }
  }

  private String string() throws NotJson {
    at++;
    StringBuilder out = new StringBuilder();
    while (at < text.length()) {
      char c = text.charAt(at++);
      if (c == '"') {
        return out.toString();
      }
      if (c != '\\') {
        out.append(c);
        continue;
      }
      if (at >= text.length()) {
        break;
      }
      char escaped = text.charAt(at++);
      switch (escaped) {
        case 'n' -> out.append('\n');
        case 't' -> out.append('\t');
        case 'r' -> out.append('\r');
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'u' -> {
          if (at + 4 > text.length()) {
            throw new NotJson("a cut \\u escape at character " + at);
          }
          try {
            out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
          } catch (NumberFormatException e) {
            throw new NotJson("a bad \\u escape at character " + at);
          }
          at += 4;
        }
        default -> out.append(escaped);
      }
    }
    throw new NotJson("a string without its closing quote");
  }

  private Double number() throws NotJson {
    int start = at;
    while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
      at++;
    }
    try {
      return Double.parseDouble(text.substring(start, at));
    } catch (NumberFormatException e) {
      throw new NotJson("no JSON value at character " + start);
    }
  }

  private char peek() throws NotJson {
    if (at >= text.length()) {
      throw new NotJson("the text ends inside a value");
    }
    return text.charAt(at);
  }

  private void expect(char c) throws NotJson {
    if (peek() != c) {
      throw new NotJson("'" + c + "' expected at character " + at);
    }
    at++;
  }

  private void space() {
    while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
      at++;
    }
  }
}
