package dev.resyncmeter.agent.weaving;

import dev.resyncmeter.agent.runtime.UnitSwitch;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.IllegalClassFormatException;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

/**
 * The agent's one class file transformer, registered by {@code premain} before anything costly: the
 * weaving (the agent's Weaver) is built on the agent's start thread while the host starts, and
 * this gate hands classes to it once it is there. It goes through three states.
 *
 * <ol>
 *   <li>Building: only the start thread's own class loading and retransformations reach the weaving.
 *       A class the host loads goes by unchanged and is noted (its loader and name), except a class
 *       the parts weave by name ({@link #wovenByName}): its loading waits. Their advice must see
 *       every instance from its constructor on.
 *   <li>Active ({@link #activate}): every class goes to the weaving; the noted classes are handed
 *       back, so the start thread retransforms the handlers among them (a handler class the host
 *       loaded early, in any package). The classes woven by name still wait.
 *   <li>Open ({@link #open}): nothing waits. No class woven by name (no informer, listener or queue)
 *       has loaded before this, so no informer can call a handler that is not woven yet, and no advice
 *       runs before the collector exists.
 * </ol>
 *
 * <p>While the weaving is being installed, host threads run none of ByteBuddy's code, only the gate's
 * own, which uses nothing but the JDK and is loaded in {@code premain}: two threads loading the same
 * classes through each other's transformers is how class loading deadlocks. For the same reason the
 * start runs on its own thread only when no other Java agent is there (the agent's entry decides).
 */
public final class StartGate implements ClassFileTransformer {

  /**
   * How long a class loading waits for the weaving. Far beyond any start (a few seconds on a loaded
   * machine); only reached if the start thread itself waits for the waiting thread (a class loader
   * that locks itself as a whole), after which that class and every later one load unwoven instead
   * of never.
   */
  static final long MAX_WAIT_SECONDS = 30;

  /**
   * The classes the parts being woven weave by name, as the JVM names them ({@code
   * io/kubernetes/...}). {@code WovenByNameTest} checks each part's list against its own matchers: a
   * class missing there would load unwoven if the host came to it before the weaving was ready.
   */
  private final Set<String> wovenByName;

  private static final String[] NEVER_NOTED = {"java/", "javax/", "jdk/", "sun/", "com/sun/", "dev/resyncmeter/agent/", "dev/resyncmeter/collector/"};

  private final CountDownLatch opened = new CountDownLatch(1);
  private final Object noting = new Object();
  // Guarded by noting; null once active.
  private List<Passed> passed = new ArrayList<>();
  private volatile boolean active;
  private volatile ClassFileTransformer weaving;
  private volatile Thread starter;
  private volatile List<UnitSwitch> unitsToTurnOffWhenLate = List.of();

  /** A gate that holds back the loading of {@code wovenByName} (JVM names) until it opens. */
  public StartGate(Set<String> wovenByName) {
    this.wovenByName = Set.copyOf(wovenByName);
  }

  /** A class that loaded unchanged while the weaving was being built. */
  public static final class Passed {
    final ClassLoader loader;
    final String name;

    Passed(ClassLoader loader, String name) {
      this.loader = loader;
      this.name = name;
    }
  }

  /** The thread that builds the weaving: it never waits for itself, and its retransformations are woven. */
  public void startedBy(Thread thread) {
    starter = thread;
  }

  /**
   * From now on every class goes to the weaving. Returns the classes that loaded unchanged before, in
   * the order they came (their names as the JVM gave them, with '/').
   */
  public List<Passed> activate() {
    synchronized (noting) {
      active = true;
      List<Passed> before = passed;
      passed = null;
      return before == null ? List.of() : before;
    }
  }

  /** From now on (weaving installed, or failed to be) no class loading waits. */
  public void open() {
    activate();
    opened.countDown();
  }

  /** Whether no class loading waits any longer. */
  boolean isOpen() {
    return opened.getCount() == 0;
  }

  /**
   * The units to switch off if a class loading gives up waiting: they would miss that class's first
   * instances and count wrong, and none counts rather than wrong.
   */
  public void whenLate(List<UnitSwitch> units) {
    unitsToTurnOffWhenLate = units;
  }

  /**
   * The instrumentation to install the weaving on: the same, except that the transformer it registers
   * becomes this gate's delegate instead of a second transformer of the JVM's (which the gate, ahead
   * of it, would make weave the waiting classes twice).
   */
  public Instrumentation delegatingTo(Instrumentation instrumentation) {
    return new Registering(instrumentation);
  }

  @Override
  public byte[] transform(
      ClassLoader loader, String className, Class<?> classBeingRedefined, ProtectionDomain domain, byte[] classFile)
      throws IllegalClassFormatException {
    ClassFileTransformer delegate = delegate(loader, className, classBeingRedefined);
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
    ClassFileTransformer delegate = delegate(loader, className, classBeingRedefined);
    return delegate == null ? null : delegate.transform(module, loader, className, classBeingRedefined, domain, classFile);
  }

  /** The weaving for this class, or null to leave it unchanged; waits first if it must be woven from its start. */
  private ClassFileTransformer delegate(ClassLoader loader, String className, Class<?> classBeingRedefined) {
    if (Thread.currentThread() == starter) {
      return weaving;
    }
    if (opened.getCount() != 0 && classBeingRedefined == null && loader != null && className != null) {
      if (wovenByName.contains(className)) {
        awaitOpen();
      } else if (!active && note(loader, className)) {
        return null;
      }
    }
    return active ? weaving : null;
  }

  private void awaitOpen() {
    try {
      if (!opened.await(MAX_WAIT_SECONDS, TimeUnit.SECONDS)) {
        open();
        for (UnitSwitch unit : unitsToTurnOffWhenLate) {
          unit.turnOff("the agent's start did not finish within " + MAX_WAIT_SECONDS + " s, and client-java classes loaded without it");
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Notes a class loading unchanged; false when the gate became active meanwhile (then it is woven). */
  private boolean note(ClassLoader loader, String className) {
    for (String prefix : NEVER_NOTED) {
      if (className.startsWith(prefix)) {
        return true;
      }
    }
    synchronized (noting) {
      if (active) {
        return false;
      }
      passed.add(new Passed(loader, className));
      return true;
    }
  }

  /** What the weaving installs on: its transformer becomes the gate's delegate; all else is the JVM's. */
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
