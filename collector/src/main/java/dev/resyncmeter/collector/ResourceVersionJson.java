package dev.resyncmeter.collector;

import java.nio.charset.StandardCharsets;

/**
 * The {@code metadata.resourceVersion} of a Kubernetes object in JSON, read without a JSON library
 * (the host's may be any, or none the agent can see): only the top-level object's {@code metadata}
 * counts, so a {@code resourceVersion} deeper down (an annotation's value, an owner's) never does.
 * Stops at the version; anything it cannot read to the end (cut off, malformed) gives null.
 */
public final class ResourceVersionJson {

  private final byte[] json;
  private final int length;
  private int at;

  private ResourceVersionJson(byte[] json, int length) {
    this.json = json;
    this.length = length;
  }

  /** The version in the first {@code length} bytes of {@code json}, or null. */
  public static String of(byte[] json, int length) {
    return read(json, length, ResourceVersionJson::topLevel);
  }

  public static String of(byte[] json) {
    return json == null ? null : of(json, json.length);
  }

  public static String of(String json) {
    return json == null ? null : of(json.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The identity and version of the object in the first {@code length} bytes of {@code json}, from
   * its top-level {@code metadata}; null when it has no metadata or cannot be read to its end.
   */
  public static WrittenObject objectOf(byte[] json, int length) {
    return read(json, length, ResourceVersionJson::metadata);
  }

  /** What one read of the object in {@code json} finds from its start. */
  private interface Reading<T> {
    T from(ResourceVersionJson json) throws Malformed;
  }

  /**
   * {@code reading} over the first {@code length} bytes of {@code json}; null when there is no JSON or
   * it cannot be read that far.
   */
  private static <T> T read(byte[] json, int length, Reading<T> reading) {
    if (json == null) {
      return null;
    }
    try {
      return reading.from(new ResourceVersionJson(json, Math.min(length, json.length)));
    } catch (Malformed e) {
      return null;
    }
  }

  private WrittenObject metadata() throws Malformed {
    if (!toMember("metadata") || !peekIs('{')) {
      return null;
    }
    expect('{');
    String namespace = null;
    String name = null;
    String uid = null;
    String version = null;
    if (peekIs('}')) {
      return null;
    }
    int found = 0;
    do {
      String member = string();
      expect(':');
      boolean wanted = member.equals("namespace") || member.equals("name") || member.equals("uid") || member.equals("resourceVersion");
      if (wanted && peekIs('"')) {
        String value = string();
        switch (member) {
          case "namespace" -> namespace = value;
          case "name" -> name = value;
          case "uid" -> uid = value;
          default -> version = value;
        }
        if (++found == 4) {
          break; // the rest (labels, annotations, managed fields) is not read
        }
      } else {
        skipValue();
      }
    } while (nextMember());
    return new WrittenObject(namespace, name, uid, version);
  }

  private String topLevel() throws Malformed {
    if (!toMember("metadata") || !peekIs('{') || !toMember("resourceVersion")) {
      return null;
    }
    return peekIs('"') ? string() : null;
  }

  /**
   * Reads the object at the cursor up to the value of its member {@code key}: true there, false when
   * the object ends without it.
   */
  private boolean toMember(String key) throws Malformed {
    expect('{');
    if (peekIs('}')) {
      return false; // an empty object
    }
    while (true) {
      String name = string();
      expect(':');
      if (name.equals(key)) {
        return true;
      }
      skipValue();
      if (!nextMember()) {
        return false;
      }
    }
  }

  /** After a member: true at a comma (another member follows), false at the object's end. */
  private boolean nextMember() throws Malformed {
    char c = next();
    if (c == ',') {
      return true;
    }
    if (c == '}') {
      return false;
    }
    throw new Malformed();
  }

  private void skipValue() throws Malformed {
    skipSpace();
    if (at >= length) {
      throw new Malformed();
    }
    byte c = json[at];
    if (c == '"') {
      string();
    } else if (c == '{' || c == '[') {
      skipNested();
    } else {
      // a number, true, false or null: up to the next delimiter
      while (at < length && json[at] != ',' && json[at] != '}' && json[at] != ']' && !isSpace(json[at])) {
        at++;
      }
    }
  }

  /** Skips an object or array, strings inside it included. */
  private void skipNested() throws Malformed {
    int depth = 0;
    while (at < length) {
      byte c = json[at];
      if (c == '"') {
        string();
        continue;
      }
      at++;
      if (c == '{' || c == '[') {
        depth++;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return;
      }
    }
    throw new Malformed();
  }

  /** A string at the cursor, unescaped (only simple escapes; a version is plain digits). */
  private String string() throws Malformed {
    expect('"');
    int start = at;
    boolean escaped = false;
    while (at < length) {
      byte c = json[at++];
      if (c == '\\') {
        escaped = true;
        at++;
      } else if (c == '"') {
        String raw = new String(json, start, at - 1 - start, StandardCharsets.UTF_8);
        return escaped ? unescape(raw) : raw;
      }
    }
    throw new Malformed();
  }

  private static String unescape(String raw) {
    StringBuilder out = new StringBuilder(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '\\' && i + 1 < raw.length()) {
        char e = raw.charAt(++i);
        out.append(e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b' : e == 'f' ? '\f' : e);
        if (e == 'u' && i + 4 < raw.length()) {
          out.setLength(out.length() - 1);
          out.append((char) Integer.parseInt(raw.substring(i + 1, i + 5), 16));
          i += 4;
        }
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  private void expect(char expected) throws Malformed {
    if (next() != expected) {
      throw new Malformed();
    }
  }

  /** Whether the next character (after spaces) is {@code expected}; consumes nothing. */
  private boolean peekIs(char expected) {
    skipSpace();
    return at < length && json[at] == expected;
  }

  private char next() throws Malformed {
    skipSpace();
    if (at >= length) {
      throw new Malformed();
    }
    return (char) json[at++];
  }

  private void skipSpace() {
    while (at < length && isSpace(json[at])) {
      at++;
    }
  }

  private static boolean isSpace(byte c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
  }

  /** Not JSON this reader can follow to the version: no version then. */
  private static final class Malformed extends Exception {
    Malformed() {
      super(null, null, false, false);
    }
  }
}
