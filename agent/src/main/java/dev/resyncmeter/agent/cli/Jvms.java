package dev.resyncmeter.agent.cli;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import com.sun.tools.attach.VirtualMachineDescriptor;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The JDK's attach API (module {@code jdk.attach}), behind plain methods whose failures are one
 * sentence each. Only loaded once {@link #attachModulePresent} said the module is there.
 */
final class Jvms {

  /** What the agent sets in the JVM it runs in, so that a second attach is refused and {@code list} can tell. */
  static final String VERSION_PROPERTY = dev.resyncmeter.agent.start.ResyncMeterAgent.VERSION_PROPERTY;
  static final String ENDPOINT_PROPERTY = dev.resyncmeter.agent.start.ResyncMeterAgent.ENDPOINT_PROPERTY;

  record Jvm(String pid, String mainClass) {}

  /** A failure to attach or load, said in one sentence. */
  static final class AttachFailure extends Exception {
    AttachFailure(String message) {
      super(message);
    }
  }

  private Jvms() {}

  static boolean attachModulePresent() {
    return ModuleLayer.boot().findModule("jdk.attach").isPresent();
  }

  /** The JVMs of this user that announce themselves for attach, without this one. */
  static List<Jvm> list() {
    String own = Long.toString(ProcessHandle.current().pid());
    List<Jvm> jvms = new ArrayList<>();
    for (VirtualMachineDescriptor descriptor : VirtualMachine.list()) {
      if (!descriptor.id().equals(own)) {
        String name = descriptor.displayName().trim();
        jvms.add(new Jvm(descriptor.id(), name.isEmpty() ? "(unknown)" : name.split("\\s+")[0]));
      }
    }
    jvms.sort((a, b) -> Long.compare(Long.parseLong(a.pid()), Long.parseLong(b.pid())));
    return jvms;
  }

  /** The target's system properties, in an attach of their own. */
  static Properties properties(String pid) throws AttachFailure {
    try (Session session = Session.of(pid)) {
      return session.properties();
    }
  }

  /** One attach to a target: what is asked of it goes over one connection, closed at the end. */
  static final class Session implements AutoCloseable {
    private final String pid;
    private final VirtualMachine vm;

    private Session(String pid, VirtualMachine vm) {
      this.pid = pid;
      this.vm = vm;
    }

    static Session of(String pid) throws AttachFailure {
      return new Session(pid, attach(pid));
    }

    Properties properties() throws AttachFailure {
      try {
        return vm.getSystemProperties();
      } catch (IOException e) {
        throw new AttachFailure("cannot read the system properties of " + pid + ": " + e.getMessage());
      }
    }

    /** Loads the agent jar with {@code arguments} (may be null); returns when its agentmain did. */
    void load(String jar, String arguments) throws AttachFailure {
      try {
        vm.loadAgent(jar, arguments);
      } catch (AgentInitializationException e) {
        throw new AttachFailure("the agent failed to start in " + pid + " (its agentmain threw, return code " + e.returnValue() + ")");
      } catch (AgentLoadException e) {
        throw new AttachFailure("the JVM " + pid + " could not load " + jar + ": " + e.getMessage());
      } catch (IOException e) {
        throw new AttachFailure("lost the connection to " + pid + " while loading the agent: " + e.getMessage());
      }
    }

    @Override
    public void close() {
      try {
        vm.detach();
      } catch (IOException ignored) {
        // the target is gone or closed the connection: nothing is held
      }
    }
  }

  private static VirtualMachine attach(String pid) throws AttachFailure {
    try {
      return VirtualMachine.attach(pid);
    } catch (AttachNotSupportedException e) {
      throw new AttachFailure(
          "cannot attach to " + pid + ": it does not answer the attach request (started with -XX:+DisableAttachMechanism,"
              + " or run by another user or in another container: attach as its user, from inside its container)");
    } catch (IOException | SecurityException e) {
      throw new AttachFailure("cannot attach to " + pid + ": not allowed (" + e.getMessage() + "); attach as the user that runs it");
    }
  }
}
