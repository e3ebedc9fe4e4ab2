package dev.warden.test.api;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

import dev.warden.test.api.ApiDeclarations.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A package split over two modules, as {@code dev.warden.test.redis} is over
 * {@code warden-test-redis} and {@code warden-test-support}: both declarations are read, and they
 * must agree.
 */
class ApiDeclarationsTests {

	@TempDir
	Path root;

	@Test
	void aPackageInTwoModulesThatDeclareItTheSameIsDeclaredOnce() throws IOException {
		declare("one", "dev.example.split", "Internal: the first half, " + ApiDeclarations.INTERNAL_ENDING);
		declare("two", "dev.example.split", "Internal: the second half, " + ApiDeclarations.INTERNAL_ENDING);

		ApiDeclarations declarations = ApiDeclarations.of(this.root);

		assertThat(declarations.packages(Kind.INTERNAL)).containsExactly("dev.example.split");
		assertThat(declarations.problems(Set.of("dev.example.split"))).isEmpty();
	}

	@Test
	void aPackageInTwoModulesThatDeclareItDifferentlyIsAProblem() throws IOException {
		declare("one", "dev.example.split", "Internal: the first half, " + ApiDeclarations.INTERNAL_ENDING);
		declare("two", "dev.example.split", "Public API: the second half.");

		ApiDeclarations declarations = ApiDeclarations.of(this.root);

		assertThat(declarations.problems(Set.of("dev.example.split"))).singleElement()
			.asString()
			.startsWith("dev.example.split: ")
			.contains("PUBLIC_API", "INTERNAL");
	}

	private void declare(String module, String packageName, String sentence) throws IOException {
		Path dir = this.root.resolve(module).resolve("src/main/java").resolve(packageName.replace('.', '/'));
		Files.createDirectories(dir);
		Files.writeString(dir.resolve("package-info.java"),
				"/**\n * " + sentence + "\n */\npackage " + packageName + ";\n", StandardCharsets.UTF_8);
	}

}
