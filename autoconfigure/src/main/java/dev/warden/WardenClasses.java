package dev.warden;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import dev.warden.json.JsonBinding;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads and initializes the classes of Warden's engine once per class loader, when the first
 * client is built, instead of on first use. Thousands of virtual threads that take their first lock
 * at once would otherwise wait for one of them to load a class or to run a static initializer (the
 * scripts, the fencing counters' keys), and a virtual thread waiting for that pins its carrier
 * thread. Only the engine's packages, which need nothing beyond Lettuce, Jackson, SLF4J and
 * Micrometer's Observation API: Warden also runs without Spring Boot.
 */
final class WardenClasses {

	private static final Logger logger = LoggerFactory.getLogger(WardenClasses.class);

	/** The engine's packages, as class file folders. */
	private static final List<String> PACKAGES = List.of("dev/warden/", "dev/warden/lock/", "dev/warden/lock/redis/",
			"dev/warden/redis/", "dev/warden/task/", "dev/warden/task/redis/");

	private static final AtomicBoolean loaded = new AtomicBoolean();

	private WardenClasses() {
	}

	/**
	 * Loads and initializes them, and warms the JSON library with {@code json}, the first time it
	 * is called. Later calls, concurrent ones included, return at once: what they use before the
	 * first is done loads as it would have.
	 */
	static void preload(JsonBinding json) {
		if (!loaded.compareAndSet(false, true)) {
			return;
		}
		warmUp(json);
		warmUpObservations();
		ClassLoader loader = WardenClasses.class.getClassLoader();
		for (String name : classNames()) {
			try {
				Class.forName(name, true, loader);
			}
			catch (ClassNotFoundException | LinkageError ex) {
				// Loaded on first use instead, as without this.
				logger.debug("Could not preload {}", name, ex);
			}
		}
	}

	/**
	 * Writes and reads a payload with the client's JSON mapper once, so that the JSON library's
	 * own classes for writing and reading text are loaded before the first task is scheduled (on a
	 * virtual thread, perhaps, among thousands). Failures are left to the first real payload.
	 */
	private static void warmUp(JsonBinding json) {
		try {
			json.read(json.write(Map.of("warden", List.of(1, "payload", true)), Map.class), Object.class);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not warm up the JSON mapper", ex);
		}
	}

	/**
	 * Goes once through what every task delivery and lock wait does with the no-op observation (a
	 * scope opened and closed, a key value, a stop), so that those interfaces and their no-op
	 * classes are initialized before the first delivery runs on a virtual thread.
	 */
	private static void warmUpObservations() {
		try {
			Observation observation = Observation.createNotStarted("warden.warm-up", ObservationRegistry.NOOP).start();
			try (Observation.Scope scope = observation.openScope()) {
				observation.lowCardinalityKeyValue("outcome", "none");
			}
			observation.stop();
		}
		catch (RuntimeException | LinkageError ex) {
			logger.debug("Could not warm up the observation API", ex);
		}
	}

	/** The classes of the engine's packages where Warden was loaded from: a jar or a folder. */
	private static List<String> classNames() {
		CodeSource source = WardenClasses.class.getProtectionDomain().getCodeSource();
		if (source == null || source.getLocation() == null) {
			// A native image, say: nothing is loaded at run time there.
			return List.of();
		}
		try {
			Path location = Path.of(source.getLocation().toURI());
			return Files.isDirectory(location) ? inFolder(location) : inJar(location);
		}
		catch (URISyntaxException | IOException | RuntimeException ex) {
			// A nested jar of an executable one, say: they load on first use instead.
			logger.debug("Cannot list Warden's classes at {}", source.getLocation(), ex);
			return List.of();
		}
	}

	private static List<String> inFolder(Path root) throws IOException {
		List<String> names = new ArrayList<>();
		for (String folder : PACKAGES) {
			Path path = root.resolve(folder);
			if (Files.isDirectory(path)) {
				try (Stream<Path> files = Files.list(path)) {
					files.map(file -> folder + file.getFileName()).filter(WardenClasses::isClass).forEach(
							file -> names.add(className(file)));
				}
			}
		}
		return names;
	}

	private static List<String> inJar(Path jar) throws IOException {
		List<String> names = new ArrayList<>();
		try (JarFile file = new JarFile(jar.toFile())) {
			Enumeration<JarEntry> entries = file.entries();
			while (entries.hasMoreElements()) {
				String entry = entries.nextElement().getName();
				int slash = entry.lastIndexOf('/');
				if (isClass(entry) && PACKAGES.contains(entry.substring(0, slash + 1))) {
					names.add(className(entry));
				}
			}
		}
		return names;
	}

	private static boolean isClass(String path) {
		return path.endsWith(".class") && !path.endsWith("package-info.class");
	}

	private static String className(String path) {
		return path.substring(0, path.length() - ".class".length()).replace('/', '.');
	}

}
