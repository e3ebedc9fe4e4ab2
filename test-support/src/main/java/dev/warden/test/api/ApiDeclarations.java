package dev.warden.test.api;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * Warden's declared API, read from where it is declared: the first sentence of each package's
 * {@code package-info.java} in the repository's modules, which starts with {@code Public API:},
 * {@code SPI:} or {@code Internal:}. This is the one list of the classification; the README's
 * project-layout table and the compatibility check's exclusions follow it. A package split over two
 * modules ({@code dev.warden.test.redis}, in {@code warden-test-redis} and
 * {@code warden-test-support}) has a {@code package-info.java} in each, and they must agree.
 * <p>
 * {@link #leaks} finds every member of a type that users can see — a public type, outside the
 * internal packages — whose signature mentions a type of an internal package: a supertype, a type
 * parameter's bound, a field's type, a constructor's or method's parameter, return or thrown type,
 * or a permitted subclass of a sealed type.
 */
public final class ApiDeclarations {

	/** What a package promises its users. */
	public enum Kind {

		/** Stable across minor versions. */
		PUBLIC_API("Public API:"),

		/** For extending Warden; may change in a minor version, with notice. */
		SPI("SPI:"),

		/** Not for use by applications; may change in any release. */
		INTERNAL("Internal:");

		private final String prefix;

		Kind(String prefix) {
			this.prefix = prefix;
		}

		/** How the first sentence of a package's {@code package-info.java} starts. */
		public String prefix() {
			return this.prefix;
		}

	}

	/** How every internal package's first sentence ends. */
	public static final String INTERNAL_ENDING = "not for use by applications; may change in any release.";

	private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+)\\s*;");

	private static final Pattern JAVADOC = Pattern.compile("/\\*\\*(.*?)\\*/", Pattern.DOTALL);

	private final Map<String, Kind> kinds;

	private final Map<String, String> firstSentences;

	private final List<String> disagreements;

	private ApiDeclarations(Map<String, Kind> kinds, Map<String, String> firstSentences, List<String> disagreements) {
		this.kinds = kinds;
		this.firstSentences = firstSentences;
		this.disagreements = disagreements;
	}

	/**
	 * The declarations of every module of the repository that holds the working directory (a
	 * module's directory, as when Maven runs its tests, or the root).
	 */
	public static ApiDeclarations ofRepository() {
		Path dir = Path.of("").toAbsolutePath();
		for (int i = 0; i < 3 && dir != null; i++, dir = dir.getParent()) {
			if (Files.isRegularFile(dir.resolve("autoconfigure/src/main/java/dev/warden/package-info.java"))) {
				return of(dir);
			}
		}
		throw new IllegalStateException("Not inside Warden's repository: " + Path.of("").toAbsolutePath());
	}

	/**
	 * The declarations of the modules under a repository's root: {@code <module>/src/main/java}. A
	 * package declared in more than one module takes the first module's declaration; the others
	 * must declare the same kind, or {@link #problems} says so.
	 */
	public static ApiDeclarations of(Path root) {
		Map<String, Kind> kinds = new TreeMap<>();
		Map<String, String> sentences = new TreeMap<>();
		Map<String, Path> declaredIn = new TreeMap<>();
		List<String> disagreements = new ArrayList<>();
		try (Stream<Path> modules = Files.list(root)) {
			for (Path module : modules.sorted().toList()) {
				Path sources = module.resolve("src/main/java");
				if (!Files.isDirectory(sources)) {
					continue;
				}
				try (Stream<Path> files = Files.walk(sources)) {
					for (Path file : files.filter((f) -> f.getFileName().toString().equals("package-info.java")).toList()) {
						String text = Files.readString(file, StandardCharsets.UTF_8);
						Matcher name = PACKAGE.matcher(text);
						if (!name.find()) {
							throw new IllegalStateException("No package declaration in " + file);
						}
						Matcher doc = JAVADOC.matcher(text);
						String sentence = doc.find() ? firstSentence(doc.group(1)) : "";
						Kind declared = kindOf(sentence);
						Path first = declaredIn.putIfAbsent(name.group(1), file);
						if (first != null) {
							if (declared != kinds.get(name.group(1))) {
								disagreements.add(name.group(1) + ": " + root.relativize(file) + " declares it " + declared
										+ ", " + root.relativize(first) + " " + kinds.get(name.group(1)));
							}
							continue;
						}
						sentences.put(name.group(1), sentence);
						if (declared != null) {
							kinds.put(name.group(1), declared);
						}
					}
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return new ApiDeclarations(Collections.unmodifiableMap(kinds), Collections.unmodifiableMap(sentences),
				List.copyOf(disagreements));
	}

	private static @Nullable Kind kindOf(String sentence) {
		for (Kind kind : Kind.values()) {
			if (sentence.startsWith(kind.prefix)) {
				return kind;
			}
		}
		return null;
	}

	private static String firstSentence(String javadoc) {
		StringBuilder text = new StringBuilder();
		for (String line : javadoc.split("\n")) {
			String trimmed = line.strip();
			if (trimmed.startsWith("*")) {
				trimmed = trimmed.substring(1).strip();
			}
			if (trimmed.startsWith("<p>") || trimmed.startsWith("@")) {
				break;
			}
			if (!trimmed.isEmpty()) {
				text.append(text.isEmpty() ? "" : " ").append(trimmed);
			}
		}
		Matcher end = Pattern.compile("\\.(\\s|$)").matcher(text);
		return end.find() ? text.substring(0, end.start() + 1) : text.toString();
	}

	/** Each declared package and its kind. */
	public Map<String, Kind> kinds() {
		return this.kinds;
	}

	/** The packages of one kind, sorted. */
	public Set<String> packages(Kind kind) {
		Set<String> packages = new TreeSet<>();
		this.kinds.forEach((name, k) -> {
			if (k == kind) {
				packages.add(name);
			}
		});
		return packages;
	}

	/**
	 * What is wrong with the declarations themselves: a {@code package-info.java} whose first
	 * sentence declares no kind, an internal package that does not say it is not for applications,
	 * a package declared differently by two modules, and a package of the given classes with no
	 * {@code package-info.java} at all.
	 */
	public List<String> problems(Set<String> packagesOfClasses) {
		List<String> problems = new ArrayList<>(this.disagreements);
		this.firstSentences.forEach((name, sentence) -> {
			Kind kind = this.kinds.get(name);
			if (kind == null) {
				problems.add(name + ": the first sentence of its package-info declares no kind (\"Public API:\", \"SPI:\" or \"Internal:\"): " + sentence);
			}
			else if (kind == Kind.INTERNAL && !sentence.endsWith(INTERNAL_ENDING)) {
				problems.add(name + ": an internal package's first sentence must end \"" + INTERNAL_ENDING + "\": " + sentence);
			}
		});
		for (String name : packagesOfClasses) {
			if (!this.firstSentences.containsKey(name)) {
				problems.add(name + ": no package-info.java declares whether it is public API, SPI or internal");
			}
		}
		return problems;
	}

	/** The class names in a directory of classes or a jar, as a build produced them. */
	public static List<String> classNames(Path classesOrJar) {
		try {
			if (Files.isDirectory(classesOrJar)) {
				return classNames(classesOrJar, classesOrJar);
			}
			try (FileSystem jar = FileSystems.newFileSystem(classesOrJar)) {
				return classNames(jar.getPath("/"), jar.getPath("/"));
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Where a class was loaded from: a directory of classes or a jar. */
	public static Path locationOf(Class<?> type) {
		try {
			return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static List<String> classNames(Path root, Path dir) throws IOException {
		try (Stream<Path> files = Files.walk(dir)) {
			return files.map((f) -> root.relativize(f).toString())
				.filter((f) -> f.endsWith(".class") && !f.endsWith("package-info.class") && !f.endsWith("module-info.class"))
				.map((f) -> f.substring(0, f.length() - ".class".length()).replace('/', '.').replace('\\', '.'))
				.sorted()
				.toList();
		}
	}

	/** The packages of some class names. */
	public static Set<String> packagesOf(List<String> classNames) {
		Set<String> packages = new TreeSet<>();
		for (String name : classNames) {
			int dot = name.lastIndexOf('.');
			packages.add((dot < 0) ? "" : name.substring(0, dot));
		}
		return packages;
	}

	/**
	 * Every member users can see, of the named classes outside the internal packages, whose
	 * signature mentions a type of an internal package, each as one line naming the member and the
	 * internal type.
	 * @param classNames the classes to check
	 * @param loader the loader to load them with (not initialized)
	 * @param hidden members and types that users do not see although the JVM calls them public
	 * (Kotlin's {@code internal}, for one)
	 */
	public List<String> leaks(List<String> classNames, ClassLoader loader, Predicate<Object> hidden) {
		Set<String> internal = packages(Kind.INTERNAL);
		List<String> leaks = new ArrayList<>();
		for (String name : classNames) {
			Class<?> type;
			try {
				type = Class.forName(name, false, loader);
			}
			catch (ClassNotFoundException | LinkageError ex) {
				leaks.add(name + ": cannot be loaded to check it: " + ex);
				continue;
			}
			if (internal.contains(type.getPackageName()) || !visible(type) || type.isSynthetic() || hidden.test(type)) {
				continue;
			}
			new Signatures(type, internal, hidden, leaks).check();
		}
		return leaks;
	}

	private static boolean visible(Class<?> type) {
		for (Class<?> c = type; c != null; c = c.getDeclaringClass()) {
			int modifiers = c.getModifiers();
			boolean nestedProtected = c.getDeclaringClass() != null && Modifier.isProtected(modifiers)
					&& !Modifier.isFinal(c.getDeclaringClass().getModifiers());
			if (!Modifier.isPublic(modifiers) && !nestedProtected) {
				return false;
			}
			if (c.isAnonymousClass() || c.isLocalClass()) {
				return false;
			}
		}
		return true;
	}

	private static final class Signatures {

		private final Class<?> type;

		private final Set<String> internal;

		private final Predicate<Object> hidden;

		private final List<String> leaks;

		Signatures(Class<?> type, Set<String> internal, Predicate<Object> hidden, List<String> leaks) {
			this.type = type;
			this.internal = internal;
			this.hidden = hidden;
			this.leaks = leaks;
		}

		void check() {
			String name = this.type.getName();
			mentions(name + " (supertype)", this.type.getGenericSuperclass());
			for (Type supertype : this.type.getGenericInterfaces()) {
				mentions(name + " (supertype)", supertype);
			}
			for (TypeVariable<?> variable : this.type.getTypeParameters()) {
				mentions(name + " (type parameter " + variable.getName() + ")", variable.getBounds());
			}
			if (this.type.isSealed()) {
				for (Class<?> permitted : this.type.getPermittedSubclasses()) {
					mentions(name + " (permits)", permitted);
				}
			}
			// Public members of a superclass users cannot name are the type's own members to them.
			Set<String> seen = new HashSet<>();
			for (Class<?> c = this.type; c != null && c != Object.class; c = c.getSuperclass()) {
				if (c != this.type && (ApiDeclarations.visible(c) || this.internal.contains(c.getPackageName()))) {
					break;
				}
				for (Field field : c.getDeclaredFields()) {
					if (seen.add("field " + field.getName()) && visible(field)) {
						mentions(describe(field), field.getGenericType());
					}
				}
				if (c == this.type) {
					for (Constructor<?> constructor : c.getDeclaredConstructors()) {
						if (visible(constructor)) {
							executable(constructor);
						}
					}
				}
				for (Method method : c.getDeclaredMethods()) {
					if (!method.isBridge() && visible(method) && seen.add(method.getName() + List.of(method.getParameterTypes()))) {
						mentions(describe(method) + " returns", method.getGenericReturnType());
						executable(method);
					}
				}
			}
		}

		private boolean visible(Member member) {
			int modifiers = member.getModifiers();
			if (member.isSynthetic() || member.getName().contains("$") || this.hidden.test(member)) {
				return false;
			}
			return Modifier.isPublic(modifiers) || (Modifier.isProtected(modifiers) && !Modifier.isFinal(this.type.getModifiers()));
		}

		private void executable(Executable executable) {
			String description = describe(executable);
			for (Type parameter : executable.getGenericParameterTypes()) {
				mentions(description + " takes", parameter);
			}
			for (Type thrown : executable.getGenericExceptionTypes()) {
				mentions(description + " throws", thrown);
			}
			for (TypeVariable<?> variable : executable.getTypeParameters()) {
				mentions(description + " (type parameter " + variable.getName() + ")", variable.getBounds());
			}
		}

		private String describe(Member member) {
			String kind = (member instanceof Field) ? "field " : (member instanceof Constructor) ? "constructor " : "";
			return this.type.getName() + "." + kind + ((member instanceof Constructor) ? this.type.getSimpleName() : member.getName())
					+ ((member instanceof Executable executable) ? parameters(executable) : "");
		}

		private static String parameters(Executable executable) {
			StringBuilder text = new StringBuilder("(");
			for (Class<?> parameter : executable.getParameterTypes()) {
				text.append((text.length() > 1) ? ", " : "").append(parameter.getSimpleName());
			}
			return text.append(")").toString();
		}

		private void mentions(String where, Type... types) {
			Set<Type> seen = new HashSet<>();
			for (Type type : types) {
				collect(where, type, seen);
			}
		}

		private void collect(String where, @Nullable Type type, Set<Type> seen) {
			if (type == null || !seen.add(type)) {
				return;
			}
			if (type instanceof Class<?> c) {
				while (c.isArray()) {
					c = c.getComponentType();
				}
				if (this.internal.contains(c.getPackageName())) {
					this.leaks.add(where + ": " + c.getName());
				}
			}
			else if (type instanceof ParameterizedType parameterized) {
				collect(where, parameterized.getRawType(), seen);
				collect(where, parameterized.getOwnerType(), seen);
				for (Type argument : parameterized.getActualTypeArguments()) {
					collect(where, argument, seen);
				}
			}
			else if (type instanceof WildcardType wildcard) {
				for (Type bound : wildcard.getUpperBounds()) {
					collect(where, bound, seen);
				}
				for (Type bound : wildcard.getLowerBounds()) {
					collect(where, bound, seen);
				}
			}
			else if (type instanceof TypeVariable<?> variable) {
				for (Type bound : variable.getBounds()) {
					collect(where, bound, seen);
				}
			}
			else if (type instanceof GenericArrayType array) {
				collect(where, array.getGenericComponentType(), seen);
			}
		}

	}

}
