package dev.warden.json;

import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.exc.InvalidDefinitionException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.jsonFormatVisitors.JsonFormatVisitorWrapper;
import com.fasterxml.jackson.databind.jsonFormatVisitors.JsonObjectFormatVisitor;
import dev.warden.task.UnreadablePayloadException;
import org.jspecify.annotations.Nullable;

/**
 * Task payloads through Jackson 2's {@link ObjectMapper}: on Spring Boot 3, the application's own.
 */
public final class Jackson2Binding implements JsonBinding {

	private final ObjectMapper mapper;

	/**
	 * @param mapper the mapper that writes and reads payloads
	 */
	public Jackson2Binding(ObjectMapper mapper) {
		if (mapper == null) {
			throw new IllegalArgumentException("The object mapper must not be null");
		}
		this.mapper = mapper;
	}

	/**
	 * A binding with a mapper that has every Jackson module on the classpath and the settings that
	 * Spring Boot gives its own, which are Jackson 3's defaults too: dates and durations as ISO-8601
	 * text, properties it does not know (a computed getter's) ignored on reading, and a primitive
	 * that the payload lacks an error rather than a zero. A payload written by either major version
	 * then reads in the other.
	 * @return the binding
	 */
	public static Jackson2Binding withModules() {
		return new Jackson2Binding(new ObjectMapper().findAndRegisterModules()
			.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
			.enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
			.disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
			.disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS));
	}

	/** {@return the mapper that writes and reads payloads} */
	public ObjectMapper getMapper() {
		return mapper;
	}

	@Override
	public String write(@Nullable Object value, Type type) {
		try {
			return mapper.writerFor(mapper.constructType(type)).writeValueAsString(value);
		}
		catch (JsonProcessingException ex) {
			throw new IllegalArgumentException("Cannot write " + describe(type).name() + " as JSON: "
					+ ex.getOriginalMessage(), ex);
		}
	}

	@Override
	public String writeArray(@Nullable Object[] values) {
		try {
			return mapper.writeValueAsString(values);
		}
		catch (JsonProcessingException ex) {
			throw new IllegalArgumentException("Cannot write the arguments as JSON: " + ex.getOriginalMessage(), ex);
		}
	}

	@Override
	public @Nullable Object read(String json, Type type) {
		JavaType javaType = mapper.constructType(type);
		try {
			return mapper.readValue(json, javaType);
		}
		catch (JsonProcessingException ex) {
			throw new UnreadablePayloadException("Cannot read " + javaType.toCanonical() + " from "
					+ JsonText.abbreviate(json) + ": " + ex.getOriginalMessage(), ex);
		}
	}

	@Override
	public @Nullable Object[] readArray(String json, Type[] types) {
		try {
			JsonNode array = mapper.readTree(json);
			if (!array.isArray() || array.size() != types.length) {
				throw new UnreadablePayloadException("Expected a JSON array of " + types.length + " values, got "
						+ JsonText.abbreviate(json), null);
			}
			Object[] values = new Object[types.length];
			for (int i = 0; i < types.length; i++) {
				values[i] = mapper.treeToValue(array.get(i), mapper.constructType(types[i]));
			}
			return values;
		}
		catch (JsonProcessingException ex) {
			throw new UnreadablePayloadException("Cannot read " + JsonText.abbreviate(json) + ": "
					+ ex.getOriginalMessage(), ex);
		}
		catch (IllegalArgumentException ex) {
			throw new UnreadablePayloadException("Cannot read " + JsonText.abbreviate(json) + ": "
					+ ex.getMessage(), ex);
		}
	}

	@Override
	public @Nullable Object toTree(@Nullable Object value) {
		return read(write(value, (value != null) ? value.getClass() : Object.class), Object.class);
	}

	@Override
	public @Nullable Object fromTree(@Nullable Object tree, Type type) {
		String json = write(tree, Object.class);
		try {
			return mapper.readValue(json, mapper.constructType(type));
		}
		catch (ValueInstantiationException ex) {
			throw new ValueRefusedException(ex.getOriginalMessage(), ex);
		}
		catch (JsonProcessingException ex) {
			throw new UnreadablePayloadException(ex.getOriginalMessage(), ex);
		}
	}

	@Override
	public JsonType describe(Type type) {
		JavaType javaType = mapper.constructType(type);
		JsonType.Kind kind = javaType.isArrayType() ? JsonType.Kind.ARRAY
				: javaType.isCollectionLikeType() ? JsonType.Kind.COLLECTION
						: javaType.isMapLikeType() ? JsonType.Kind.MAP : JsonType.Kind.VALUE;
		return new JsonType(javaType, javaType.getRawClass(), kind, javaType.getKeyType(), javaType.getContentType(),
				javaType.toCanonical());
	}

	@Override
	public @Nullable List<JsonProperty> properties(Type type) {
		List<JsonProperty> properties = new ArrayList<>();
		AtomicBoolean object = new AtomicBoolean();
		try {
			mapper.acceptJsonFormatVisitor(mapper.constructType(type), new JsonFormatVisitorWrapper.Base() {
				@Override
				public JsonObjectFormatVisitor expectObjectFormat(JavaType objectType) {
					object.set(true);
					return new JsonObjectFormatVisitor.Base(getProvider()) {
						@Override
						public void property(BeanProperty property) {
							properties.add(jsonProperty(property));
						}

						@Override
						public void optionalProperty(BeanProperty property) {
							properties.add(jsonProperty(property));
						}
					};
				}
			});
		}
		catch (JsonProcessingException ex) {
			throw new IllegalStateException("Cannot list the JSON properties of " + describe(type).name() + ": "
					+ ex.getOriginalMessage(), ex);
		}
		return object.get() ? properties : null;
	}

	private static JsonProperty jsonProperty(BeanProperty property) {
		return new JsonProperty(property.getName(),
				(property.getMember() != null) ? property.getMember().getName() : null, property.getType());
	}

	@Override
	public @Nullable String definitionProblem(Type type) {
		try {
			mapper.readValue("{}", mapper.constructType(type));
			return null;
		}
		catch (InvalidDefinitionException ex) {
			return ex.getOriginalMessage();
		}
		catch (JsonProcessingException ex) {
			// Wrong input for a type that can be read otherwise: fine.
			return null;
		}
	}

	@Override
	public String toString() {
		return "Jackson 2 (" + mapper.getClass().getName() + ")";
	}

}
