package dev.resyncmeter.examples.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The project's documentation as the tests read it: the README, {@code docs/} and the READMEs of the
 * folders, with their links and their samples of output.
 *
 * <p>A sample is a fenced block without a language, preceded by {@code <!-- sample: NAME -->}: what a
 * run named NAME prints. A block preceded by {@code <!-- sample keys: NAME -->} names the keys of a
 * JSON output. Blocks with a language ({@code sh}, {@code yaml}, {@code text}, ...) are commands,
 * configuration or layouts, not output.
 */
final class Documentation {

  private static final Pattern MARKER = Pattern.compile("<!-- sample( keys)?: (.+?) -->");
  private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");

  /** A fenced block of a page, with the marker before it, if any. */
  record Block(Path page, int line, String language, String marker, boolean keys, List<String> lines) {
    String where() {
      return root().relativize(page) + ":" + line;
    }
  }

  /** A relative link of a page. */
  record Link(Path page, int line, String target) {}

  private Documentation() {}

  /** The repository: the examples module's parent. */
  static Path root() {
    Path root = Path.of("").toAbsolutePath().getParent();
    if (!Files.isRegularFile(root.resolve("README.md"))) {
      throw new IllegalStateException("not run from the examples module: no README.md in " + root);
    }
    return root;
  }

  /** The README, every page of docs/ and the README of every top-level folder. */
  static List<Path> pages() {
    List<Path> pages = new ArrayList<>();
    pages.add(root().resolve("README.md"));
    try (Stream<Path> docs = Files.list(root().resolve("docs")); Stream<Path> folders = Files.list(root())) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
      folders.map(f -> f.resolve("README.md")).filter(Files::isRegularFile).sorted().forEach(pages::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return pages;
  }

  static List<Block> blocks(Path page) {
    List<String> lines = read(page);
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (!lines.get(i).startsWith("```")) {
        continue;
      }
      int open = i;
      List<String> content = new ArrayList<>();
      for (i++; i < lines.size() && !lines.get(i).startsWith("```"); i++) {
        content.add(lines.get(i));
      }
      Matcher marker = open > 0 ? MARKER.matcher(lines.get(open - 1)) : MARKER.matcher("");
      boolean marked = marker.matches();
      blocks.add(new Block(page, open + 1, lines.get(open).substring(3).trim(), marked ? marker.group(2) : null, marked && marker.group(1) != null, content));
    }
    return blocks;
  }

  /** Links to files of the repository (not web addresses), outside fenced blocks. */
  static List<Link> relativeLinks(Path page) {
    List<String> lines = read(page);
    List<Link> links = new ArrayList<>();
    boolean fenced = false;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith("```")) {
        fenced = !fenced;
        continue;
      }
      Matcher link = LINK.matcher(lines.get(i));
      while (!fenced && link.find()) {
        String target = link.group(1);
        if (!target.matches("[a-z]+:.*")) {
          links.add(new Link(page, i + 1, target));
        }
      }
    }
    return links;
  }

  /** The anchors GitHub gives a page's headings. */
  static List<String> anchors(Path page) {
    List<String> anchors = new ArrayList<>();
    boolean fenced = false;
    for (String line : read(page)) {
      fenced ^= line.startsWith("```");
      if (!fenced && line.matches("#{1,6} .*")) {
        String title = line.replaceFirst("#+ ", "").toLowerCase();
        anchors.add(title.replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
      }
    }
    return anchors;
  }

  /**
   * The shape of some output: its words with every number made 0, every bar [##--] made [bar] and
   * every word's plural s dropped, so that a sample and a run match whatever their timing-dependent
   * numbers, and whether a count came out as one (the report says {@code 1 time}, {@code 2 times}).
   */
  static List<String> shape(List<String> lines) {
    List<String> words = new ArrayList<>();
    for (String line : lines) {
      for (String word : line.trim().split("\\s+")) {
        if (!word.isEmpty()) {
          words.add(word.replaceAll("\\[[#-]+\\]", "[bar]").replaceAll("\\d+(\\.\\d+)?", "0").replaceAll("(?<=\\p{L}\\p{L})s(\\W*)$", "$1"));
        }
      }
    }
    return words;
  }

  /** Where the sample's shape stands in the output's, or the longest start of it that does. */
  static int longestMatch(List<String> sample, List<String> output) {
    int longest = 0;
    for (int start = 0; start < output.size() && longest < sample.size(); start++) {
      int n = 0;
      while (n < sample.size() && start + n < output.size() && sample.get(n).equals(output.get(start + n))) {
        n++;
      }
      longest = Math.max(longest, n);
    }
    return longest;
  }

  private static List<String> read(Path page) {
    try {
      return Files.readAllLines(page);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
