package dev.resyncmeter.collector.endpoint;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Just enough DER to turn the key encodings a Kubernetes TLS secret may hold (PKCS#1 for RSA, SEC1
 * for EC) into the PKCS#8 the JDK reads: one element's tag, and its contents' bounds.
 */
final class Der {

  static final int INTEGER = 0x02;
  static final int OCTET_STRING = 0x04;
  static final int NULL = 0x05;
  static final int OID = 0x06;
  static final int SEQUENCE = 0x30;
  /** {@code [0]}, constructed: SEC1's curve parameters. */
  static final int CONTEXT_0 = 0xa0;

  /** One element: its tag, and where its contents start and end in {@code bytes}. */
  record Element(byte[] bytes, int tag, int start, int end, int contentStart) {

    byte[] contents() {
      return Arrays.copyOfRange(bytes, contentStart, end);
    }

    byte[] whole() {
      return Arrays.copyOfRange(bytes, start, end);
    }

    /** The elements inside a constructed one (a SEQUENCE, a context tag). */
    List<Element> children() throws KeyFormatException {
      List<Element> children = new ArrayList<>();
      for (int at = contentStart; at < end; ) {
        Element child = read(bytes, at, end);
        children.add(child);
        at = child.end;
      }
      return children;
    }
  }

  private Der() {}

  /** The element at the start of {@code bytes}, which must be all of them. */
  static Element read(byte[] bytes) throws KeyFormatException {
    Element element = read(bytes, 0, bytes.length);
    if (element.end != bytes.length) {
      throw new KeyFormatException("bytes after the key");
    }
    return element;
  }

  private static Element read(byte[] bytes, int at, int limit) throws KeyFormatException {
    if (limit - at < 2) {
      throw new KeyFormatException("a truncated DER element");
    }
    int tag = bytes[at] & 0xff;
    int first = bytes[at + 1] & 0xff;
    int contentStart = at + 2;
    long length = first;
    if (first > 0x80) {
      int octets = first - 0x80;
      if (octets > 4 || contentStart + octets > limit) {
        throw new KeyFormatException("a DER length that does not fit");
      }
      length = 0;
      for (int i = 0; i < octets; i++) {
        length = (length << 8) | (bytes[contentStart + i] & 0xff);
      }
      contentStart += octets;
    } else if (first == 0x80) {
      throw new KeyFormatException("an indefinite DER length");
    }
    if (length > limit - contentStart) {
      throw new KeyFormatException("a truncated DER element");
    }
    return new Element(bytes, tag, at, contentStart + (int) length, contentStart);
  }

  /** A whole element: {@code tag}, the length, then {@code contents} in order. */
  static byte[] element(int tag, byte[]... contents) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    for (byte[] part : contents) {
      body.writeBytes(part);
    }
    int length = body.size();
    ByteArrayOutputStream out = new ByteArrayOutputStream(length + 6);
    out.write(tag);
    if (length < 0x80) {
      out.write(length);
    } else {
      int octets = length < 0x100 ? 1 : length < 0x10000 ? 2 : length < 0x1000000 ? 3 : 4;
      out.write(0x80 + octets);
      for (int i = octets - 1; i >= 0; i--) {
        out.write(length >>> (8 * i));
      }
    }
    out.writeBytes(body.toByteArray());
    return out.toByteArray();
  }

  /** An object identifier written as its dotted numbers, e.g. {@code 1.2.840.113549.1.1.1}. */
  static byte[] oid(String dotted) {
    String[] arcs = dotted.split("\\.");
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.write(Integer.parseInt(arcs[0]) * 40 + Integer.parseInt(arcs[1]));
    for (int i = 2; i < arcs.length; i++) {
      long arc = Long.parseLong(arcs[i]);
      int groups = 1;
      while ((arc >>> (7 * groups)) != 0) {
        groups++;
      }
      for (int g = groups - 1; g >= 0; g--) {
        int sevenBits = (int) (arc >>> (7 * g)) & 0x7f;
        body.write(g == 0 ? sevenBits : sevenBits | 0x80);
      }
    }
    return element(OID, body.toByteArray());
  }

  /** What is wrong with a key's encoding; its message completes "the key file holds ...". */
  static final class KeyFormatException extends Exception {
    KeyFormatException(String message) {
      super(message);
    }
  }
}
