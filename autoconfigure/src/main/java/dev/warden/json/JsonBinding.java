package dev.warden.json;

import java.lang.reflect.Type;
import java.util.List;

import dev.warden.task.UnreadablePayloadException;
import org.jspecify.annotations.Nullable;

/**
 * The JSON library that stores task payloads: the application's own mapper, with its modules and
 * settings, so that a task argument is written and read exactly as the application's web layer
 * would. Warden ships {@link Jackson3Binding} (Spring Boot 4) and {@link Jackson2Binding} (Spring
 * Boot 3); {@link JsonBindings#detect()} picks one from the classpath.
 * <p>
 * Besides writing and reading, a binding describes types the way its library sees them, so that
 * Warden can prove at startup that a task argument's type reads back what was written.
 */
public interface JsonBinding {

	/**
	 * @param value a value, or {@code null}
	 * @param type its declared type, generics included
	 * @return the value as JSON
	 * @throws IllegalArgumentException when the value cannot be written
	 */
	String write(@Nullable Object value, Type type);

	/**
	 * @param values values, written each by its own class
	 * @return a JSON array of them
	 * @throws IllegalArgumentException when one cannot be written
	 */
	String writeArray(@Nullable Object[] values);

	/**
	 * @param json JSON text
	 * @param type the type to read, generics included
	 * @return the value read
	 * @throws UnreadablePayloadException naming the type and the reason when it cannot be read
	 */
	@Nullable Object read(String json, Type type);

	/**
	 * @param json a JSON array
	 * @param types the type of each element, as many as there must be elements
	 * @return the elements read
	 * @throws UnreadablePayloadException when the text is not such an array, or an element cannot
	 * be read
	 */
	@Nullable Object[] readArray(String json, Type[] types);

	/**
	 * @param value a value
	 * @return its JSON as plain Java: maps, lists, strings, numbers, booleans and {@code null}
	 */
	@Nullable Object toTree(@Nullable Object value);

	/**
	 * @param tree JSON as plain Java, as {@link #toTree} returns it
	 * @param type the type to read it as
	 * @return the value read
	 * @throws ValueRefusedException when the type's creator ran and threw
	 * @throws UnreadablePayloadException when it cannot be read for another reason
	 */
	@Nullable Object fromTree(@Nullable Object tree, Type type);

	/**
	 * @param type a type
	 * @return how the library sees it: a value, an array, a collection or a map, with their parts
	 */
	JsonType describe(Type type);

	/**
	 * @param type a type
	 * @return the properties the library writes for it, in order, or {@code null} when it does not
	 * write the type as an object of properties (a scalar, or a type with a serializer of its own)
	 */
	@Nullable List<JsonProperty> properties(Type type);

	/**
	 * @param type a type that is no container
	 * @return why the library cannot read the type at all (no creator it can use, say), or
	 * {@code null} when it can
	 */
	@Nullable String definitionProblem(Type type);

	/**
	 * A type as a JSON library sees it.
	 *
	 * @param type the library's own form of the type, which its other methods take
	 * @param rawClass the type's class
	 * @param kind what it is written as
	 * @param keyType a map's key type
	 * @param contentType the element type of an array or collection, the value type of a map
	 * @param name the type's canonical name, generics included
	 */
	record JsonType(Type type, Class<?> rawClass, Kind kind, @Nullable Type keyType, @Nullable Type contentType,
			String name) {

		/** What a type is written as. */
		public enum Kind {

			/** Anything not below: a scalar, an enum, a bean. */
			VALUE,

			/** A Java array. */
			ARRAY,

			/** A collection, or a type the library writes like one. */
			COLLECTION,

			/** A map, or a type the library writes like one. */
			MAP

		}

		/** {@return whether it is an array, a collection or a map} */
		public boolean isContainer() {
			return kind != Kind.VALUE;
		}

	}

	/**
	 * A property a library writes for a type.
	 *
	 * @param name its JSON name
	 * @param memberName the name of the field or method it is read from, when there is one
	 * @param type its type, in the library's own form
	 */
	record JsonProperty(String name, @Nullable String memberName, Type type) {
	}

	/** Thrown by {@link #fromTree} when the type's creator ran and refused the value. */
	final class ValueRefusedException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		/**
		 * A value the type's creator refused.
		 * @param message what was refused
		 * @param cause what the creator threw
		 */
		public ValueRefusedException(String message, Throwable cause) {
			super(message, cause);
		}

	}

}
