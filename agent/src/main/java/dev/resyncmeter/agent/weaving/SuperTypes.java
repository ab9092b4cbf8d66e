package dev.resyncmeter.agent.weaving;

import dev.resyncmeter.agent.runtime.IdentityWeakMap;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which of a few interfaces (the handler interfaces) a class implements, read from class files by
 * names alone, without ByteBuddy: the weaving asks it of every class the host loads that is not
 * ignored by name, so it must cost little and load nothing. A super type is read from its loader's
 * class file ({@code getResourceAsStream}) and its answer kept per loader. Other agents and mock makers
 * add interfaces defined without a class file (OpenTelemetry's {@code VirtualFieldAccessor$...}): a
 * type that cannot be read ends that branch of the walk, it is not the type sought and none of ours
 * could extend it. Nothing in {@code java.*} can extend a library type, so the walk does not enter it.
 */
final class SuperTypes {

  private static final int ACC_INTERFACE = 0x0200;
  private static final int MAX_DEPTH = 64;

  private final List<String> interfaces;
  /** Per loader: a type's internal name, the interfaces it reaches (bits in the order given). */
  private final IdentityWeakMap<ConcurrentHashMap<String, Integer>> reached = new IdentityWeakMap<>();

  /** {@code interfaces} by their Java names ({@code io.kubernetes.client.informer.ResourceEventHandler}). */
  SuperTypes(List<String> interfaces) {
    this.interfaces = new ArrayList<>();
    for (String name : interfaces) {
      this.interfaces.add(name.replace('.', '/'));
    }
  }

  /** The bit of {@code interfaceName} in the answers. */
  int bit(String interfaceName) {
    int index = interfaces.indexOf(interfaceName.replace('.', '/'));
    return index < 0 ? 0 : 1 << index;
  }

  /**
   * The interfaces a class (not an interface itself) implements, as bits; 0 for an interface or a
   * class file that cannot be read.
   */
  int implementedBy(ClassLoader loader, byte[] classFile) {
    Header header = Header.read(classFile);
    if (header == null || (header.access & ACC_INTERFACE) != 0) {
      return 0;
    }
    return reachedFromSupers(loader, header, 0);
  }

  /** The same for a class already loaded, read through reflection. */
  int implementedBy(Class<?> type) {
    return type.isInterface() ? 0 : reachedByLoaded(type);
  }

  private int reachedByLoaded(Class<?> type) {
    if (type == null || type.getName().startsWith("java.")) {
      return 0;
    }
    int bits = bit(type.getName());
    bits |= reachedByLoaded(type.getSuperclass());
    for (Class<?> implemented : type.getInterfaces()) {
      bits |= reachedByLoaded(implemented);
    }
    return bits;
  }

  private int reachedFromSupers(ClassLoader loader, Header header, int depth) {
    int bits = 0;
    if (header.superName != null) {
      bits |= reached(loader, header.superName, depth + 1);
    }
    for (String implemented : header.interfaces) {
      bits |= reached(loader, implemented, depth + 1);
    }
    return bits;
  }

  private int reached(ClassLoader loader, String internalName, int depth) {
    int bits = 0;
    for (int i = 0; i < interfaces.size(); i++) {
      if (interfaces.get(i).equals(internalName)) {
        bits |= 1 << i;
      }
    }
    if (internalName.startsWith("java/") || depth > MAX_DEPTH || loader == null) {
      return bits;
    }
    ConcurrentHashMap<String, Integer> known = reached.computeIfAbsent(loader, l -> new ConcurrentHashMap<>());
    Integer cached = known.get(internalName);
    if (cached != null) {
      return bits | cached;
    }
    byte[] classFile;
    try {
      classFile = classFileOf(loader, internalName);
    } catch (IOException | RuntimeException failedRead) {
      return bits; // not kept: the next class with this super type reads it again
    }
    Header header = Header.read(classFile);
    int found = header == null ? 0 : reachedFromSupers(loader, header, depth);
    if (depth <= MAX_DEPTH / 2) {
      known.put(internalName, found);
    }
    return bits | found;
  }

  /** The class file a loader has for the type, or null when it has none (a type defined without one). */
  private static byte[] classFileOf(ClassLoader loader, String internalName) throws IOException {
    try (InputStream in = loader.getResourceAsStream(internalName + ".class")) {
      return in == null ? null : in.readAllBytes();
    }
  }

  /** A class file's access flags, super class and interfaces (internal names); the rest is skipped. */
  record Header(int access, String superName, List<String> interfaces) {

    /** Null when {@code classFile} is null or not a class file this reader understands. */
    static Header read(byte[] classFile) {
      if (classFile == null || classFile.length < 10 || readInt(classFile, 0) != 0xCAFEBABE) {
        return null;
      }
      try {
        int count = readUnsignedShort(classFile, 8);
        int[] offsets = new int[count];
        int offset = 10;
        for (int i = 1; i < count; i++) {
          offsets[i] = offset + 1;
          int tag = classFile[offset] & 0xFF;
          switch (tag) {
            case 1 -> offset += 3 + readUnsignedShort(classFile, offset + 1); // Utf8
            case 3, 4, 9, 10, 11, 12, 17, 18 -> offset += 5;
            case 5, 6 -> {
              offset += 9;
              i++; // a long or double takes two entries
            }
            case 7, 8, 16, 19, 20 -> offset += 3;
            case 15 -> offset += 4;
            default -> {
              return null;
            }
          }
        }
        int access = readUnsignedShort(classFile, offset);
        int superIndex = readUnsignedShort(classFile, offset + 4);
        int interfaceCount = readUnsignedShort(classFile, offset + 6);
        List<String> interfaces = new ArrayList<>(interfaceCount);
        for (int i = 0; i < interfaceCount; i++) {
          interfaces.add(className(classFile, offsets, readUnsignedShort(classFile, offset + 8 + 2 * i)));
        }
        return new Header(access, superIndex == 0 ? null : className(classFile, offsets, superIndex), interfaces);
      } catch (RuntimeException malformed) {
        return null;
      }
    }

    private static String className(byte[] classFile, int[] offsets, int classIndex) {
      int utf8 = offsets[readUnsignedShort(classFile, offsets[classIndex])];
      return modifiedUtf8(classFile, utf8 + 2, readUnsignedShort(classFile, utf8));
    }

    /** Class names are ASCII but for rare cases; those are decoded as the JVM's modified UTF-8. */
    private static String modifiedUtf8(byte[] bytes, int from, int length) {
      char[] chars = new char[length];
      int count = 0;
      for (int i = from; i < from + length; ) {
        int b = bytes[i++] & 0xFF;
        if (b < 0x80) {
          chars[count++] = (char) b;
        } else if ((b & 0xE0) == 0xC0) {
          chars[count++] = (char) (((b & 0x1F) << 6) | (bytes[i++] & 0x3F));
        } else {
          chars[count++] = (char) (((b & 0x0F) << 12) | ((bytes[i++] & 0x3F) << 6) | (bytes[i++] & 0x3F));
        }
      }
      return new String(chars, 0, count);
    }

    private static int readUnsignedShort(byte[] bytes, int offset) {
      return ((bytes[offset] & 0xFF) << 8) | (bytes[offset + 1] & 0xFF);
    }

    private static int readInt(byte[] bytes, int offset) {
      return (readUnsignedShort(bytes, offset) << 16) | readUnsignedShort(bytes, offset + 2);
    }
  }
}
