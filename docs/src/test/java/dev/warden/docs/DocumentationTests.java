package dev.warden.docs;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import dev.warden.docs.Markdown.Block;
import dev.warden.docs.Markdown.Link;
import org.jetbrains.kotlin.cli.common.ExitCode;
import org.jetbrains.kotlin.cli.jvm.K2JVMCompiler;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README and the reference under {@code docs/} say what the code does only as long as their
 * snippets still compile against it. Every {@code java} block is a complete compilation unit,
 * compiled against this module's test class path (a page's blocks in one compilation, so that the
 * blocks of one package see each other; every block names its package, {@code com.example.shop} or
 * one under it unless it is a standalone program with a {@code main}; the README's
 * blocks, the five-minute start's application, are on the class path of the pages'), and the
 * README's test and the testing page's example tests run; every {@code kotlin} block is a complete
 * Kotlin file, compiled likewise; every {@code yaml} block parses and names only {@code warden.*}
 * properties the configuration metadata has; every Warden dependency snippet names the last release;
 * every fence is tagged; and every relative link (of the
 * changelog too) reaches a file, and its anchor a heading of that page. A failure names the page and the line.
 */
class DocumentationTests {

	/** The package of the README's application, which its {@code @SpringBootApplication} scans. */
	private static final String APPLICATION_PACKAGE = "com.example.shop";

	private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;?", Pattern.MULTILINE);

	private static Path root;

	private static List<Markdown> pages;

	@BeforeAll
	static void read() {
		root = Path.of(System.getProperty("warden.docs.root", "..")).toAbsolutePath().normalize();
		pages = Markdown.all(root);
		assertThat(pages).as("the README and docs/*.md under " + root).hasSizeGreaterThan(10);
	}

	@Test
	void everyFenceIsTagged() {
		List<String> untagged = new ArrayList<>();
		for (Markdown page : pages) {
			for (Block block : page.blocks()) {
				if (block.language().isEmpty()) {
					untagged.add(block.where(0) + ": a fence without a language (java, kotlin, yaml, xml, sh, text…)");
				}
			}
		}
		assertThat(untagged).isEmpty();
	}

	@Test
	void javaSnippetsCompile(@TempDir Path out) throws IOException {
		List<String> errors = new ArrayList<>();
		int compiled = 0;
		String classPath = classPath();
		for (Markdown page : pages) {
			Path classes = out.resolve("p" + pages.indexOf(page));
			compiled += compileJava(page, classPath, classes, errors);
			if (page.path().toString().equals("README.md")) {
				// The five-minute start's application, which the pages may build on.
				classPath = classes + File.pathSeparator + classPath;
			}
		}
		assertThat(compiled).as("java snippets found").isPositive();
		assertThat(errors).as("java snippets that do not compile").isEmpty();
	}

	/**
	 * The README's five-minute start does more than compile: its test runs, on the Redis that
	 * {@code @WardenTest} starts, as a reader's copy of it would.
	 */
	@Test
	void theReadmesTestPasses(@TempDir Path out) throws Exception {
		Markdown readme = pages.get(0);
		List<String> errors = new ArrayList<>();
		compileJava(readme, classPath(), out, errors);
		assertThat(errors).as("the README's snippets").isEmpty();
		runTests(readme, out, out);
	}

	/**
	 * The testing page's examples test the README's application: they run too, each class on
	 * {@code @WardenTest}'s reset before each test, as a reader's copy of them would.
	 */
	@Test
	void theTestingPagesTestsPass(@TempDir Path out) throws Exception {
		Markdown readme = pages.get(0);
		Markdown testing = pages.stream()
			.filter(page -> page.path().toString().equals("docs/testing.md"))
			.findFirst()
			.orElseThrow();
		List<String> errors = new ArrayList<>();
		Path application = out.resolve("readme");
		compileJava(readme, classPath(), application, errors);
		Path tests = out.resolve("testing");
		compileJava(testing, application + File.pathSeparator + classPath(), tests, errors);
		assertThat(errors).as("the snippets of the README and the testing page").isEmpty();
		runTests(testing, tests, application, tests);
	}

	/**
	 * Runs the {@code *Tests} classes compiled from a page into {@code tests}, with the classes of
	 * {@code classes} before the test class path, in a class loader of their own, and fails naming
	 * the tests that failed.
	 */
	private static void runTests(Markdown page, Path tests, Path... classes) throws Exception {
		List<String> names;
		try (Stream<Path> files = Files.walk(tests)) {
			names = files.filter(f -> f.getFileName().toString().endsWith("Tests.class"))
				.map(file -> tests.relativize(file).toString().replace(File.separatorChar, '.').replaceAll("\\.class$", ""))
				.toList();
		}
		assertThat(names).as("test classes in " + page.path()).isNotEmpty();
		StringBuilder path = new StringBuilder();
		for (Path dir : classes) {
			path.append(dir).append(File.pathSeparator);
		}
		PageTestRun.Result result = PageTestRun.run(path + classPath(), names);
		assertThat(result.failed()).as(page.path() + ": " + result.failures()).isZero();
		assertThat(result.succeeded()).as("the tests of " + page.path() + " that passed").isPositive();
	}

	/**
	 * Compiles a page's java blocks in one compilation, each its own compilation unit.
	 * @return how many blocks it compiled; their errors are added to {@code errors}
	 */
	private static int compileJava(Markdown page, String classPath, Path classes, List<String> errors)
			throws IOException {
		List<Snippet> units = new ArrayList<>();
		for (Block block : page.blocks()) {
			if (block.language().equals("java")) {
				units.add(new Snippet(block, withPackage(block)));
			}
		}
		if (units.isEmpty()) {
			return 0;
		}
		Files.createDirectories(classes);
		JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT,
				StandardCharsets.UTF_8)) {
			// -parameters as spring-boot-starter-parent compiles an application (the README's first
			// step): without it a key expression such as #orderId names an unknown parameter.
			List<String> options = List.of("-proc:none", "-parameters", "-Xlint:none", "-nowarn", "-d",
					classes.toString(), "-classpath", classPath);
			javac.getTask(null, files, diagnostics, options, null, units).call();
		}
		for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
			if (diagnostic.getKind() == Diagnostic.Kind.ERROR && diagnostic.getSource() instanceof Snippet snippet) {
				errors.add(snippet.block.where((int) diagnostic.getLineNumber()) + ": "
						+ diagnostic.getMessage(Locale.ROOT));
			}
			else if (diagnostic.getKind() == Diagnostic.Kind.ERROR) {
				errors.add(page.path() + ": " + diagnostic.getMessage(Locale.ROOT));
			}
		}
		return units.size();
	}

	/**
	 * A reader puts a snippet into the README's application, whose {@code @SpringBootApplication} in
	 * {@code com.example.shop} scans that package and those under it: every {@code java} block
	 * names its package, and one outside {@code com.example.shop} is a standalone program, with a
	 * {@code main} method of its own (the plain Java page's).
	 */
	@Test
	void javaSnippetsAreInTheApplicationsPackageOrStandalone() {
		Pattern main = Pattern.compile("\\bstatic\\s+void\\s+main\\s*\\(");
		List<String> errors = new ArrayList<>();
		for (Markdown page : pages) {
			for (Block block : page.blocks()) {
				if (!block.language().equals("java")) {
					continue;
				}
				Matcher declared = PACKAGE.matcher(block.text());
				if (!declared.lookingAt()) {
					errors.add(block.where(1) + ": no package; the README's application is com.example.shop");
				}
				else if (!declared.group(1).equals(APPLICATION_PACKAGE)
						&& !declared.group(1).startsWith(APPLICATION_PACKAGE + ".")
						&& !main.matcher(block.text()).find()) {
					errors.add(block.where(1) + ": package " + declared.group(1) + ", which the README's application ("
							+ APPLICATION_PACKAGE + ") does not scan, and no main method of a standalone program");
				}
			}
		}
		assertThat(errors).as("java snippets outside the README's application").isEmpty();
	}

	@Test
	void kotlinSnippetsCompile(@TempDir Path out) throws IOException {
		Map<String, Block> sources = new LinkedHashMap<>();
		Path src = Files.createDirectories(out.resolve("src"));
		for (Markdown page : pages) {
			for (Block block : page.blocks()) {
				if (block.language().equals("kotlin")) {
					String name = fileName(block) + ".kt";
					Files.writeString(src.resolve(name), withPackage(block));
					sources.put(name, block);
				}
			}
		}
		assertThat(sources).as("kotlin snippets found").isNotEmpty();
		List<String> args = new ArrayList<>(List.of("-classpath", classPath(), "-d", out.resolve("classes").toString(),
				"-no-stdlib", "-no-reflect", "-jvm-target", "17", "-nowarn", "-Xjsr305=strict"));
		sources.keySet().forEach(name -> args.add(src.resolve(name).toString()));
		ByteArrayOutputStream messages = new ByteArrayOutputStream();
		ExitCode exit;
		try (PrintStream stream = new PrintStream(messages, true, StandardCharsets.UTF_8)) {
			exit = new K2JVMCompiler().exec(stream, args.toArray(String[]::new));
		}
		List<String> errors = new ArrayList<>();
		Pattern located = Pattern.compile("([\\w.-]+\\.kt):(\\d+):(\\d+)");
		for (String message : messages.toString(StandardCharsets.UTF_8).split("\n(?=\\S)")) {
			if (!message.contains(": error:") && !message.startsWith("error:")) {
				continue;
			}
			Matcher where = located.matcher(message);
			if (where.find() && sources.containsKey(where.group(1))) {
				Block block = sources.get(where.group(1));
				errors.add(block.where(Integer.parseInt(where.group(2))) + ": "
						+ message.substring(where.end()).replaceFirst("^[:\\s]+", ""));
			}
			else {
				errors.add(message.strip());
			}
		}
		assertThat(errors).as("kotlin snippets that do not compile").isEmpty();
		assertThat(exit).as("the Kotlin compiler's exit code").isEqualTo(ExitCode.OK);
	}

	/**
	 * A reader copies a Warden dependency snippet as it is, so its {@code <version>} is a version
	 * that was released: the last line of {@code RELEASES} (or, in a release commit, whose POMs are
	 * at a release version that {@code RELEASES} records only in the next commit, that version).
	 * {@code .release/release.sh} rewrites the snippets at each release; a version written as a
	 * property ({@code ${warden.version}}) is the reader's.
	 */
	@Test
	void wardenDependencySnippetsNameTheLastRelease() throws IOException {
		List<String> releases = Files.readAllLines(root.resolve("RELEASES"))
			.stream()
			.filter(line -> !line.isBlank() && !line.startsWith("#"))
			.map(line -> line.split("\\s+")[0])
			.toList();
		assertThat(releases).as("the releases in RELEASES").isNotEmpty();
		Set<String> allowed = new HashSet<>(List.of(releases.get(releases.size() - 1)));
		Matcher own = Pattern.compile("(?m)^  <version>([^<]+)</version>").matcher(Files.readString(root.resolve("pom.xml")));
		if (own.find() && !own.group(1).endsWith("-SNAPSHOT")) {
			allowed.add(own.group(1));
		}
		Pattern dependency = Pattern.compile("<artifactId>(warden-[^<]*)</artifactId>\\s*<version>([^<]*)</version>");
		List<String> errors = new ArrayList<>();
		int found = 0;
		for (Markdown page : pages) {
			for (Block block : page.blocks()) {
				Matcher snippet = dependency.matcher(block.text());
				while (snippet.find()) {
					found++;
					String version = snippet.group(2).strip();
					if (!version.startsWith("${") && !allowed.contains(version)) {
						int line = 1 + (int) block.text().substring(0, snippet.start()).chars().filter(c -> c == '\n').count();
						errors.add(block.where(line) + ": " + snippet.group(1) + " " + version
								+ ", but the last release (RELEASES) is " + allowed);
					}
				}
			}
		}
		assertThat(found).as("Warden dependency snippets found").isPositive();
		assertThat(errors).as("Warden dependency snippets not at the last release").isEmpty();
	}

	@Test
	void yamlSnippetsParseAndNameOnlyKnownProperties() throws IOException {
		Set<String> known = configurationMetadata();
		List<String> errors = new ArrayList<>();
		int parsed = 0;
		for (Markdown page : pages) {
			for (Block block : page.blocks()) {
				if (!block.language().equals("yaml")) {
					continue;
				}
				parsed++;
				try {
					for (Object document : new Yaml().loadAll(block.text())) {
						for (String key : flatten("", document)) {
							if (key.startsWith("warden.") && !isKnown(known, key)) {
								errors.add(block.where(0) + ": no property " + key
										+ " in the configuration metadata");
							}
						}
					}
				}
				catch (RuntimeException ex) {
					errors.add(block.where(0) + ": " + ex.getMessage());
				}
			}
		}
		assertThat(parsed).as("yaml snippets found").isPositive();
		assertThat(errors).isEmpty();
	}

	@Test
	void relativeLinksReachAFileAndItsAnchor() {
		List<String> errors = new ArrayList<>();
		for (Markdown page : pages) {
			Path dir = root.resolve(page.path()).getParent();
			for (Link link : page.relativeLinks()) {
				String target = link.target();
				int hash = target.indexOf('#');
				String file = (hash < 0) ? target : target.substring(0, hash);
				String anchor = (hash < 0) ? null : target.substring(hash + 1);
				Path resolved = file.isEmpty() ? root.resolve(page.path()) : dir.resolve(file).normalize();
				String where = page.path() + ":" + link.line() + ": " + target;
				if (!Files.exists(resolved)) {
					errors.add(where + ": no such file");
					continue;
				}
				if (anchor != null && resolved.toString().endsWith(".md")
						&& !Markdown.read(root, root.relativize(resolved)).anchors().contains(anchor)) {
					errors.add(where + ": no such anchor");
				}
			}
		}
		assertThat(errors).isEmpty();
	}

	/**
	 * A snippet without a package gets one of its own, on its first line so that lines stay (Java and
	 * Kotlin both take {@code package a.b; import ...} on one line).
	 */
	private static String withPackage(Block block) {
		if (PACKAGE.matcher(block.text()).lookingAt()) {
			return block.text();
		}
		return "package " + packageName(block) + "; " + block.text();
	}

	private static String packageName(Block block) {
		return "snippets." + fileName(block).toLowerCase(Locale.ROOT);
	}

	private static String fileName(Block block) {
		String page = block.page().path().toString().replaceAll("\\.md$", "").replaceAll("[^A-Za-z0-9]", "_");
		return page + "_L" + block.line();
	}

	private static String classPath() {
		String path = System.getProperty("surefire.test.class.path");
		return (path != null && !path.isBlank()) ? path : System.getProperty("java.class.path");
	}

	private static List<String> flatten(String prefix, Object node) {
		List<String> keys = new ArrayList<>();
		if (node instanceof Map<?, ?> map) {
			for (Map.Entry<?, ?> entry : map.entrySet()) {
				keys.addAll(flatten(prefix + entry.getKey() + ".", entry.getValue()));
			}
		}
		else if (!prefix.isEmpty()) {
			keys.add(prefix.substring(0, prefix.length() - 1));
		}
		return keys;
	}

	/**
	 * A key is known when the metadata has it, or when it goes below a map-valued property
	 * ({@code warden.delayed-task.queues.<queue>.max-attempts}), whose entries the metadata does not
	 * list.
	 */
	private static boolean isKnown(Set<String> known, String key) {
		return known.contains(key) || known.stream()
			.anyMatch(name -> name.endsWith(".*") && key.startsWith(name.substring(0, name.length() - 1)));
	}

	/**
	 * The {@code warden.*} properties of every configuration metadata file on the class path; a
	 * map-valued property {@code p} is listed as {@code p.*} too.
	 */
	private static Set<String> configurationMetadata() throws IOException {
		Set<String> names = new HashSet<>();
		ObjectMapper json = JsonMapper.builder().build();
		Enumeration<URL> files = DocumentationTests.class.getClassLoader()
			.getResources("META-INF/spring-configuration-metadata.json");
		while (files.hasMoreElements()) {
			try (InputStream in = files.nextElement().openStream()) {
				JsonNode metadata = json.readTree(in);
				for (JsonNode property : metadata.path("properties")) {
					String name = property.path("name").asString();
					String type = property.path("type").asString();
					if (!name.startsWith("warden.")) {
						continue;
					}
					names.add(name);
					if (type.startsWith("java.util.Map<")) {
						names.add(name + ".*");
					}
				}
			}
		}
		assertThat(names).as("warden.* properties in the configuration metadata").isNotEmpty();
		return names;
	}

	/** A snippet as the compiler reads it, named after its page and line. */
	private static final class Snippet extends SimpleJavaFileObject {

		final Block block;

		private final String source;

		Snippet(Block block, String source) {
			super(URI.create("string:///" + fileName(block) + ".java"), Kind.SOURCE);
			this.block = block;
			this.source = source;
		}

		@Override
		public CharSequence getCharContent(boolean ignoreEncodingErrors) {
			return source;
		}

		/** A public type may be named otherwise than the snippet: a reader names the file. */
		@Override
		public boolean isNameCompatible(String simpleName, Kind kind) {
			return kind == Kind.SOURCE;
		}

	}

}
