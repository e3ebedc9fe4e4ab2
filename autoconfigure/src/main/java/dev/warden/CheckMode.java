package dev.warden;

/**
 * What one of Warden's startup checks does when it finds a problem: Redis's eviction policy
 * ({@link Warden.Builder#evictionPolicyCheck(CheckMode)}, {@code warden.eviction-policy-check}) and
 * calls of an annotated method on {@code this} ({@code warden.self-invocation}).
 */
public enum CheckMode {

	/** Fail startup, saying what was found; found later, while the application runs, it is logged. */
	FAIL,

	/** Log a warning, once per problem found. */
	WARN,

	/** Do not look. */
	IGNORE

}
