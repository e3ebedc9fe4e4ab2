package dev.warden.test;

import java.util.List;

import dev.warden.test.api.ApiDeclarations;
import dev.warden.test.api.ApiDeclarations.Kind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The declared API holds for {@code warden-test}: its package says in its {@code package-info}
 * what it promises, and no signature users can see mentions a type of an internal package —
 * Warden's or the test harness's.
 */
class DeclaredApiTests {

	private final ApiDeclarations declarations = ApiDeclarations.ofRepository();

	private final List<String> classes = ApiDeclarations.classNames(ApiDeclarations.locationOf(WardenTest.class));

	@Test
	void everyPackageDeclaresWhatItPromises() {
		assertThat(this.declarations.problems(ApiDeclarations.packagesOf(this.classes))).isEmpty();
		// RedisNode, which TestRedis runs, is in warden-test-redis: published, but internal.
		assertThat(this.declarations.packages(Kind.INTERNAL)).contains("dev.warden.test.redis");
	}

	@Test
	void noSignatureUsersSeeMentionsAnInternalType() {
		assertThat(this.declarations.leaks(this.classes, getClass().getClassLoader(), (member) -> false)).isEmpty();
	}

}
