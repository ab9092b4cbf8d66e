package dev.resyncmeter.agent;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.IllegalClassFormatException;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

/**
 * The agent's one class file transformer, registered by {@code premain} before anything costly: the
 * weaving (ByteBuddy's transformer) is built on the agent's start thread while the host starts, and
 * this gate hands every class to it once it is there.
 *
 * <p>Until then a class goes by unchanged, except a class of client-java's informer or
 * client-java-extended's packages (not an interface): its loading waits for the weaving. Those are the
 * classes the units weave by name, and the only ones whose advice must see every instance from its
 * constructor on. A handler class loaded before (the host's own, in any package) is woven by the
 * retransformation that installs the weaving, and that is over before the gate lets any informer
 * class load: no informer can call a handler that is not woven yet.
 *
 * <p>It uses nothing but the JDK, so registering it costs the host no class of ByteBuddy's.
 */
final class StartGate implements ClassFileTransformer {

  /**
   * How long a class loading waits for the weaving. Far beyond any start (a few seconds on a loaded
   * machine); only reached if the start thread itself waits for the waiting thread (a class loader
   * that locks itself as a whole), after which the class loads unwoven instead of never.
   */
  static final long MAX_WAIT_SECONDS = 30;

  private static final String[] WOVEN_PACKAGES = {"io/kubernetes/client/informer/", "io/kubernetes/client/extended/"};
  private static final int ACC_INTERFACE = 0x0200;

  private final CountDownLatch ready = new CountDownLatch(1);
  private volatile ClassFileTransformer weaving;
  private volatile Thread starter;

  /** The thread that builds the weaving: it never waits for itself. */
  void startedBy(Thread thread) {
    starter = thread;
  }

  /** Whether classes have been handed to the weaving or let go unwoven for good. */
  boolean isOpen() {
    return ready.getCount() == 0;
  }

  /** From now on (weaving installed, or failed to be) no class loading waits. */
  void open() {
    ready.countDown();
  }

  /**
   * The instrumentation to install the weaving on: the same, except that the transformer it registers
   * becomes this gate's delegate instead of a second transformer of the JVM's (which the gate, ahead
   * of it, would make weave the waiting classes twice).
   */
  Instrumentation delegatingTo(Instrumentation instrumentation) {
    return new Registering(instrumentation);
  }

  @Override
  public byte[] transform(
      ClassLoader loader, String className, Class<?> classBeingRedefined, ProtectionDomain domain, byte[] classFile)
      throws IllegalClassFormatException {
    ClassFileTransformer delegate = beforeWeaving(loader, className, classBeingRedefined, classFile);
    return delegate == null ? null : delegate.transform(loader, className, classBeingRedefined, domain, classFile);
  }

  @Override
  public byte[] transform(
      Module module,
      ClassLoader loader,
      String className,
      Class<?> classBeingRedefined,
      ProtectionDomain domain,
      byte[] classFile)
      throws IllegalClassFormatException {
    ClassFileTransformer delegate = beforeWeaving(loader, className, classBeingRedefined, classFile);
    return delegate == null ? null : delegate.transform(module, loader, className, classBeingRedefined, domain, classFile);
  }

  /** Waits for the weaving if this class must be woven from its first instance on; the weaving, or null. */
  private ClassFileTransformer beforeWeaving(ClassLoader loader, String className, Class<?> classBeingRedefined, byte[] classFile) {
    if (ready.getCount() != 0
        && classBeingRedefined == null
        && loader != null
        && inWovenPackage(className)
        && !isInterface(classFile)
        && Thread.currentThread() != starter) {
      try {
        ready.await(MAX_WAIT_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return weaving;
  }

  static boolean inWovenPackage(String className) {
    if (className == null) {
      return false;
    }
    for (String prefix : WOVEN_PACKAGES) {
      if (className.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the class file declares an interface (or annotation): its access flags follow the constant
   * pool. Unreadable bytes count as a class, which waits.
   */
  static boolean isInterface(byte[] classFile) {
    try {
      int count = u2(classFile, 8);
      int at = 10;
      for (int index = 1; index < count; index++) {
        int tag = classFile[at] & 0xff;
        switch (tag) {
          case 1 -> at += 3 + u2(classFile, at + 1); // Utf8
          case 3, 4, 9, 10, 11, 12, 17, 18 -> at += 5; // Integer, Float, refs, NameAndType, Dynamic, InvokeDynamic
          case 5, 6 -> { // Long, Double: two entries
            at += 9;
            index++;
          }
          case 7, 8, 16, 19, 20 -> at += 3; // Class, String, MethodType, Module, Package
          case 15 -> at += 4; // MethodHandle
          default -> {
            return false;
          }
        }
      }
      return (u2(classFile, at) & ACC_INTERFACE) != 0;
    } catch (RuntimeException unreadable) {
      return false;
    }
  }

  private static int u2(byte[] bytes, int at) {
    return ((bytes[at] & 0xff) << 8) | (bytes[at + 1] & 0xff);
  }

  /** What ByteBuddy installs on: its transformer becomes the gate's delegate; all else is the JVM's. */
  private final class Registering implements Instrumentation {
    private final Instrumentation jvm;

    Registering(Instrumentation jvm) {
      this.jvm = jvm;
    }

    @Override
    public void addTransformer(ClassFileTransformer transformer, boolean canRetransform) {
      weaving = transformer;
    }

    @Override
    public void addTransformer(ClassFileTransformer transformer) {
      weaving = transformer;
    }

    @Override
    public boolean removeTransformer(ClassFileTransformer transformer) {
      if (transformer != null && transformer == weaving) {
        weaving = null;
        return true;
      }
      return false;
    }

    @Override
    public boolean isRetransformClassesSupported() {
      return jvm.isRetransformClassesSupported();
    }

    @Override
    public void retransformClasses(Class<?>... classes) throws java.lang.instrument.UnmodifiableClassException {
      jvm.retransformClasses(classes);
    }

    @Override
    public boolean isRedefineClassesSupported() {
      return jvm.isRedefineClassesSupported();
    }

    @Override
    public void redefineClasses(java.lang.instrument.ClassDefinition... definitions)
        throws ClassNotFoundException, java.lang.instrument.UnmodifiableClassException {
      jvm.redefineClasses(definitions);
    }

    @Override
    public boolean isModifiableClass(Class<?> theClass) {
      return jvm.isModifiableClass(theClass);
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Class[] getAllLoadedClasses() {
      return jvm.getAllLoadedClasses();
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Class[] getInitiatedClasses(ClassLoader loader) {
      return jvm.getInitiatedClasses(loader);
    }

    @Override
    public long getObjectSize(Object objectToSize) {
      return jvm.getObjectSize(objectToSize);
    }

    @Override
    public void appendToBootstrapClassLoaderSearch(JarFile jarfile) {
      jvm.appendToBootstrapClassLoaderSearch(jarfile);
    }

    @Override
    public void appendToSystemClassLoaderSearch(JarFile jarfile) {
      jvm.appendToSystemClassLoaderSearch(jarfile);
    }

    @Override
    public boolean isNativeMethodPrefixSupported() {
      return jvm.isNativeMethodPrefixSupported();
    }

    @Override
    public void setNativeMethodPrefix(ClassFileTransformer transformer, String prefix) {
      jvm.setNativeMethodPrefix(transformer, prefix);
    }

    @Override
    public void redefineModule(
        Module module,
        java.util.Set<Module> extraReads,
        java.util.Map<String, java.util.Set<Module>> extraExports,
        java.util.Map<String, java.util.Set<Module>> extraOpens,
        java.util.Set<Class<?>> extraUses,
        java.util.Map<Class<?>, java.util.List<Class<?>>> extraProvides) {
      jvm.redefineModule(module, extraReads, extraExports, extraOpens, extraUses, extraProvides);
    }

    @Override
    public boolean isModifiableModule(Module module) {
      return jvm.isModifiableModule(module);
    }
  }
}
