package dev.resyncmeter.agent.fabric8.request;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.collector.RestClientMetrics;
import java.net.URI;
import org.junit.jupiter.api.Test;

/** What the fabric8 request bridge reads from the requests and responses of any HTTP client. */
class Fabric8RequestBridgeTest {

  /** An HTTP client's response class: fabric8's {@code HttpResponse} has {@code code()}. */
  public static final class Answer {
    public int code() {
      return 404;
    }
  }

  /** fabric8's {@code WebSocketResponse}: the upgrade response in a package-private field. */
  static final class Upgrade {
    final Answer webSocketUpgradeResponse;

    Upgrade(Answer upgrade) {
      this.webSocketUpgradeResponse = upgrade;
    }
  }

  @Test
  void theCodeIsTheResponsesOrItsWebSocketUpgradesAndNoneWithoutEither() throws Exception {
    assertThat(Fabric8RequestBridge.code(new Answer())).isEqualTo(404);
    assertThat(Fabric8RequestBridge.code(new Upgrade(new Answer()))).isEqualTo(404);
    assertThat(Fabric8RequestBridge.code(new Upgrade(null))).isEqualTo(RestClientMetrics.NO_RESPONSE);
    assertThat(Fabric8RequestBridge.code(null)).isEqualTo(RestClientMetrics.NO_RESPONSE);
  }

  @Test
  void aWatchIsAskedForInTheQueryAndAPortDefaultsToTheSchemes() {
    assertThat(Fabric8RequestBridge.isWatch("allowWatchBookmarks=true&resourceVersion=7&watch=true")).isTrue();
    assertThat(Fabric8RequestBridge.isWatch("resourceVersion=7")).isFalse();
    assertThat(Fabric8RequestBridge.isWatch("watcher=true")).isFalse();
    assertThat(Fabric8RequestBridge.isWatch(null)).isFalse();
    assertThat(Fabric8RequestBridge.port(URI.create("https://10.0.0.1/api"))).isEqualTo(443);
    assertThat(Fabric8RequestBridge.port(URI.create("wss://10.0.0.1/api"))).isEqualTo(443);
    assertThat(Fabric8RequestBridge.port(URI.create("http://localhost/api"))).isEqualTo(80);
    assertThat(Fabric8RequestBridge.port(URI.create("http://localhost:6443/api"))).isEqualTo(6443);
  }
}
