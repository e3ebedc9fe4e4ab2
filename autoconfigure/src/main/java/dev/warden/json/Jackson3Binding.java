package dev.warden.json;

import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.warden.task.UnreadablePayloadException;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.BeanProperty;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.exc.InvalidDefinitionException;
import tools.jackson.databind.exc.ValueInstantiationException;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.jsonFormatVisitors.JsonFormatVisitorWrapper;
import tools.jackson.databind.jsonFormatVisitors.JsonObjectFormatVisitor;

/**
 * Task payloads through Jackson 3's {@link JsonMapper}: on Spring Boot 4, the application's own.
 */
public final class Jackson3Binding implements JsonBinding {

	private final JsonMapper mapper;

	/**
	 * @param mapper the mapper that writes and reads payloads
	 */
	public Jackson3Binding(JsonMapper mapper) {
		if (mapper == null) {
			throw new IllegalArgumentException("The JSON mapper must not be null");
		}
		this.mapper = mapper;
	}

	/**
	 * A binding with a mapper that has every Jackson module on the classpath.
	 * @return the binding
	 */
	public static Jackson3Binding withModules() {
		return new Jackson3Binding(JsonMapper.builder().findAndAddModules().build());
	}

	/** {@return the mapper that writes and reads payloads} */
	public JsonMapper getMapper() {
		return mapper;
	}

	@Override
	public String write(@Nullable Object value, Type type) {
		try {
			return mapper.writerFor(mapper.constructType(type)).writeValueAsString(value);
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException("Cannot write " + describe(type).name() + " as JSON: "
					+ ex.getOriginalMessage(), ex);
		}
	}

	@Override
	public String writeArray(@Nullable Object[] values) {
		try {
			return mapper.writeValueAsString(values);
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException("Cannot write the arguments as JSON: " + ex.getOriginalMessage(), ex);
		}
	}

	@Override
	public @Nullable Object read(String json, Type type) {
		JavaType javaType = mapper.constructType(type);
		try {
			return mapper.readValue(json, javaType);
		}
		catch (JacksonException ex) {
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
		catch (JacksonException ex) {
			throw new UnreadablePayloadException("Cannot read " + JsonText.abbreviate(json) + ": "
					+ ex.getOriginalMessage(), ex);
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
		catch (JacksonException ex) {
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
		mapper.acceptJsonFormatVisitor(mapper.constructType(type), new JsonFormatVisitorWrapper.Base() {
			@Override
			public JsonObjectFormatVisitor expectObjectFormat(JavaType objectType) {
				object.set(true);
				return new JsonObjectFormatVisitor.Base(getContext()) {
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
		catch (JacksonException ex) {
			// Wrong input for a type that can be read otherwise: fine.
			return null;
		}
	}

	@Override
	public String toString() {
		return "Jackson 3 (" + mapper.getClass().getName() + ")";
	}

}
