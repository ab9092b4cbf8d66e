package dev.resyncmeter.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the end-to-end tests find a JDK by feature version under a folder such as /usr/lib/jvm. */
class JdksTest {

  @TempDir Path jvms;

  @Test
  void aJdkIsKnownByTheFeatureVersionInItsReleaseFile() throws IOException {
    assertThat(Jdks.featureOf(jdk("temurin-25-jdk-amd64", "JAVA_VERSION=\"25.0.3\""))).isEqualTo(25);
    assertThat(Jdks.featureOf(jdk("jdk-25-ea", "JAVA_VERSION=\"25\""))).isEqualTo(25);
    assertThat(Jdks.featureOf(jdk("java-17-openjdk-amd64", "IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"17.0.15\""))).isEqualTo(17);
    assertThat(Jdks.featureOf(jdk("java-8", "JAVA_VERSION=\"1.8.0_402\""))).isEqualTo(1);
  }

  @Test
  void aFolderWithoutAJavaOrAReleaseFileIsNoJdk() throws IOException {
    Path noJava = Files.createDirectories(jvms.resolve("no-java"));
    Files.writeString(noJava.resolve("release"), "JAVA_VERSION=\"25.0.3\"");
    assertThat(Jdks.featureOf(noJava)).isEqualTo(-1);
    Path noRelease = jdk("no-release", null);
    assertThat(Jdks.featureOf(noRelease)).isEqualTo(-1);
  }

  @Test
  void theScanFindsTheJdkOfTheWantedVersionAndNothingForAnother() throws IOException {
    jdk("java-17-openjdk-amd64", "JAVA_VERSION=\"17.0.15\"");
    Path jdk25 = jdk("temurin-25-jdk-amd64", "JAVA_VERSION=\"25.0.3\"");
    assertThat(Jdks.scan(jvms, 25)).isEqualTo(jdk25);
    assertThat(Jdks.scan(jvms, 21)).isNull();
    assertThat(Jdks.scan(jvms.resolve("absent"), 25)).isNull();
  }

  /** A folder shaped like a JDK: an executable bin/java and, unless null, a release file. */
  private Path jdk(String name, String release) throws IOException {
    Path home = Files.createDirectories(jvms.resolve(name).resolve("bin")).getParent();
    Path java = Files.createFile(home.resolve("bin").resolve("java"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
    assertThat(Files.isExecutable(java)).isTrue();
    if (release != null) {
      Files.writeString(home.resolve("release"), release + "\n");
    }
    return home;
  }
}
