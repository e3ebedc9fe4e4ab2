package dev.warden;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.warden.test.api.ApiDeclarations;
import dev.warden.test.api.ApiDeclarations.Kind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The declared API holds for {@code warden-spring-boot-autoconfigure}: every package says in its
 * {@code package-info} whether it is public API, SPI or internal, and no signature users can see
 * mentions an internal type, so that nothing tells them to import one.
 */
class DeclaredApiTests {

	private final ApiDeclarations declarations = ApiDeclarations.ofRepository();

	private final List<String> classes = ApiDeclarations.classNames(ApiDeclarations.locationOf(Warden.class));

	@Test
	void everyPackageDeclaresWhatItPromises() {
		assertThat(this.declarations.problems(ApiDeclarations.packagesOf(this.classes))).isEmpty();
		assertThat(this.declarations.packages(Kind.INTERNAL)).contains("dev.warden.redis", "dev.warden.task.redis");
		assertThat(this.declarations.packages(Kind.PUBLIC_API)).contains("dev.warden", "dev.warden.task");
	}

	/**
	 * The build's two lists of internal packages, the compatibility check's excludes and the
	 * javadoc's exemption from the missing-comment check, name exactly the packages declared
	 * internal: a package declared internal later, or public again, is not left out of either.
	 */
	@Test
	void theBuildExemptsExactlyTheInternalPackages() throws Exception {
		Path root = Path.of("").toAbsolutePath();
		while (!Files.isRegularFile(root.resolve("autoconfigure/pom.xml"))) {
			root = root.getParent();
		}
		String pom = Files.readString(root.resolve("pom.xml"));
		Matcher doclint = Pattern.compile("-Xdoclint/package:([^<]+)<").matcher(pom);
		assertThat(doclint.find()).as("the javadoc's -Xdoclint/package option").isTrue();
		Set<String> exempt = new TreeSet<>();
		for (String entry : doclint.group(1).split(",")) {
			exempt.add(entry.trim().replaceFirst("^-", ""));
		}
		String japicmp = pom.substring(pom.indexOf("<artifactId>japicmp-maven-plugin</artifactId>"));
		japicmp = japicmp.substring(japicmp.indexOf("<excludes>"), japicmp.indexOf("</excludes>"));
		Set<String> excluded = new TreeSet<>();
		Matcher exclude = Pattern.compile("<exclude>([a-z][a-z0-9.]*)</exclude>").matcher(japicmp);
		while (exclude.find()) {
			excluded.add(exclude.group(1));
		}
		Set<String> internal = new TreeSet<>(this.declarations.packages(Kind.INTERNAL));
		internal.removeIf(name -> name.startsWith("dev.warden.test.postgres") || name.startsWith("dev.warden.test.api"));
		assertThat(exempt).as("javadoc's exemption from the missing-comment check").isEqualTo(internal);
		assertThat(excluded).as("japicmp's excluded packages").isEqualTo(internal);
	}

	@Test
	void noSignatureUsersSeeMentionsAnInternalType() {
		assertThat(this.declarations.leaks(this.classes, getClass().getClassLoader(), (member) -> false)).isEmpty();
	}

}
