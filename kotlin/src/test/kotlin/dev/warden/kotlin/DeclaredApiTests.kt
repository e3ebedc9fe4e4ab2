package dev.warden.kotlin

import dev.warden.test.api.ApiDeclarations
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import java.lang.reflect.Member
import kotlin.reflect.KVisibility
import kotlin.reflect.jvm.kotlinFunction

/**
 * The declared API holds for `warden-kotlin`: no signature users can see mentions a type of an
 * internal package. Kotlin's `internal` declarations compile to public ones, and are left out.
 */
class DeclaredApiTests {

	private val declarations = ApiDeclarations.ofRepository()

	private val classes = ApiDeclarations.classNames(ApiDeclarations.locationOf(CoroutineLockHandler::class.java))

	@Test
	fun noSignatureUsersSeeMentionsAnInternalType() {
		assertThat(classes).isNotEmpty
		assertThat(declarations.leaks(classes, javaClass.classLoader, ::kotlinInternal)).isEmpty()
	}

	private fun kotlinInternal(element: Any): Boolean = runCatching {
		when (element) {
			is Class<*> -> element.kotlin.visibility.let { it != null && it != KVisibility.PUBLIC && it != KVisibility.PROTECTED }
			is java.lang.reflect.Method -> element.kotlinFunction?.visibility.let { it != null && it != KVisibility.PUBLIC && it != KVisibility.PROTECTED }
			is Member -> false
			else -> false
		}
	}.getOrDefault(false)

}
