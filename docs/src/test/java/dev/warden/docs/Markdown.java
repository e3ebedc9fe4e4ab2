package dev.warden.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A Markdown page of the documentation, read as GitHub renders it as far as the checks need: its
 * fenced blocks, its links and its anchors.
 *
 * @param root the repository's root
 * @param path the page, relative to the root
 * @param lines the page's lines
 */
record Markdown(Path root, Path path, List<String> lines) {

	private static final Pattern FENCE = Pattern.compile("^( *)(`{3,})(.*)$");

	private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

	private static final Pattern INLINE_CODE = Pattern.compile("(`+).*?\\1");

	private static final Pattern HEADING = Pattern.compile("^#{1,6} +(.*?)#*\\s*$");

	private static final Pattern ANCHOR = Pattern.compile("<a id=\"([^\"]+)\"");

	/**
	 * One fenced block.
	 *
	 * @param page the page
	 * @param language the fence's info string (empty when untagged)
	 * @param line the page's line of the block's first line of content, from 1
	 * @param text the content, with the fence's indentation taken off
	 */
	record Block(Markdown page, String language, int line, String text) {

		String where(int lineInBlock) {
			return page.path() + ":" + (line + lineInBlock - 1);
		}

	}

	/**
	 * One relative link.
	 *
	 * @param page the page
	 * @param line its line, from 1
	 * @param target the link's target as written
	 */
	record Link(Markdown page, int line, String target) {
	}

	/** {@return the README, every page under {@code docs/}, and the changelog, in order} */
	static List<Markdown> all(Path root) {
		List<Markdown> pages = new ArrayList<>();
		pages.add(read(root, Path.of("README.md")));
		pages.add(read(root, Path.of("CHANGELOG.md")));
		try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
			docs.filter(file -> file.getFileName().toString().endsWith(".md"))
				.map(file -> root.relativize(file))
				.sorted()
				.forEach(file -> pages.add(read(root, file)));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return pages;
	}

	static Markdown read(Path root, Path path) {
		try {
			return new Markdown(root, path, Files.readAllLines(root.resolve(path)));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** {@return the page's fenced blocks; an unclosed fence fails} */
	List<Block> blocks() {
		List<Block> blocks = new ArrayList<>();
		int i = 0;
		while (i < lines.size()) {
			Matcher open = FENCE.matcher(lines.get(i));
			if (!open.matches() || open.group(3).contains("`")) {
				i++;
				continue;
			}
			int indent = open.group(1).length();
			String fence = open.group(2);
			String language = open.group(3).trim();
			StringBuilder text = new StringBuilder();
			int start = i + 1;
			int j = start;
			while (true) {
				if (j == lines.size()) {
					throw new AssertionError(path + ":" + (i + 1) + ": a fence that is never closed");
				}
				String line = lines.get(j);
				if (line.strip().startsWith(fence) && line.strip().chars().allMatch(c -> c == '`')) {
					break;
				}
				int cut = 0;
				while (cut < indent && cut < line.length() && line.charAt(cut) == ' ') {
					cut++;
				}
				text.append(line.substring(cut)).append('\n');
				j++;
			}
			blocks.add(new Block(this, language, start + 1, text.toString()));
			i = j + 1;
		}
		return blocks;
	}

	/** {@return the page's links that are not URLs, outside fenced blocks and code spans} */
	List<Link> relativeLinks() {
		List<Link> links = new ArrayList<>();
		List<String> prose = prose();
		for (int i = 0; i < prose.size(); i++) {
			Matcher link = LINK.matcher(INLINE_CODE.matcher(prose.get(i)).replaceAll(""));
			while (link.find()) {
				String target = link.group(1);
				if (!target.matches("^[a-zA-Z][a-zA-Z+.-]*:.*")) {
					links.add(new Link(this, i + 1, target));
				}
			}
		}
		return links;
	}

	/**
	 * The anchors GitHub gives the page: one per heading (lower case, punctuation but {@code -} and
	 * {@code _} dropped, spaces as {@code -}, a repeated one suffixed {@code -1}, {@code -2}, …) and
	 * each {@code <a id="…">}.
	 * @return the anchors
	 */
	Set<String> anchors() {
		Set<String> anchors = new LinkedHashSet<>();
		Map<String, Integer> seen = new HashMap<>();
		for (String line : prose()) {
			Matcher id = ANCHOR.matcher(line);
			while (id.find()) {
				anchors.add(id.group(1));
			}
			Matcher heading = HEADING.matcher(line);
			if (heading.matches()) {
				String slug = heading.group(1).strip().toLowerCase(Locale.ROOT)
					.replaceAll("[^\\p{L}\\p{N}_\\- ]", "")
					.replace(' ', '-');
				int n = seen.merge(slug, 1, Integer::sum) - 1;
				anchors.add((n == 0) ? slug : slug + "-" + n);
			}
		}
		return anchors;
	}

	/** The page's lines with those of fenced blocks blanked, so that line numbers stay. */
	private List<String> prose() {
		List<String> prose = new ArrayList<>(lines);
		for (Block block : blocks()) {
			int count = (int) block.text().chars().filter(c -> c == '\n').count();
			for (int k = block.line() - 2; k <= block.line() - 1 + count && k < prose.size(); k++) {
				prose.set(k, "");
			}
		}
		return prose;
	}

}
