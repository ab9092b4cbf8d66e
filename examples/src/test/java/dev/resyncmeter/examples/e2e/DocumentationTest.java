package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The documentation holds together: a short README, links that lead somewhere, output that is checked. */
class DocumentationTest {

  @Test
  void theReadmeIsAFrontDoorOfAtMost15KB() throws IOException {
    assertThat(Files.size(Documentation.root().resolve("README.md"))).isLessThanOrEqualTo(15 * 1024);
  }

  @Test
  void everyRelativeLinkLeadsToAFileAndItsHeading() {
    List<String> broken = new ArrayList<>();
    for (Path page : Documentation.pages()) {
      for (Documentation.Link link : Documentation.relativeLinks(page)) {
        String[] pathAndAnchor = link.target().split("#", 2);
        Path target = pathAndAnchor[0].isEmpty() ? page : page.resolveSibling(pathAndAnchor[0]).normalize();
        String where = Documentation.root().relativize(page) + ":" + link.line() + " " + link.target();
        if (!Files.exists(target)) {
          broken.add(where + ": no such file");
        } else if (pathAndAnchor.length == 2 && !Documentation.anchors(target).contains(pathAndAnchor[1])) {
          broken.add(where + ": no such heading");
        }
      }
    }
    assertThat(broken).isEmpty();
  }

  @Test
  void everySampleOfOutputNamesTheRunThatChecksIt() {
    List<String> unchecked = new ArrayList<>();
    for (Path page : Documentation.pages()) {
      for (Documentation.Block block : Documentation.blocks(page)) {
        if (block.marker() == null && block.language().isEmpty()) {
          unchecked.add(block.where() + ": output without <!-- sample: NAME --> (or a command or layout without a language)");
        } else if (block.marker() != null && !(block.keys() ? DocumentedSamplesIT.KEY_SAMPLES : DocumentedSamplesIT.SAMPLES).contains(block.marker())) {
          unchecked.add(block.where() + ": no run named '" + block.marker() + "' in DocumentedSamplesIT");
        }
      }
    }
    assertThat(unchecked).isEmpty();
  }
}
