package dev.warden;

import java.util.List;

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

	@Test
	void noSignatureUsersSeeMentionsAnInternalType() {
		assertThat(this.declarations.leaks(this.classes, getClass().getClassLoader(), (member) -> false)).isEmpty();
	}

}
