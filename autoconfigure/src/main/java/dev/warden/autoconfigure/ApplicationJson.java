package dev.warden.autoconfigure;

import dev.warden.json.Jackson2Binding;
import dev.warden.json.Jackson3Binding;
import dev.warden.json.JsonBinding;
import dev.warden.json.JsonBindings;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ClassUtils;

/**
 * The application's own JSON mapper as Warden's payload binding, found without touching a Jackson
 * class that is not on the classpath: a {@link JsonBinding} bean, else Jackson 3's {@code JsonMapper}
 * bean (Spring Boot 4), else Jackson 2's {@code ObjectMapper} bean (Spring Boot 3), else
 * {@link JsonBindings#detect()}.
 */
final class ApplicationJson {

	private static final ClassLoader LOADER = ApplicationJson.class.getClassLoader();

	private ApplicationJson() {
	}

	static JsonBinding of(BeanFactory beanFactory) {
		JsonBinding binding = beanFactory.getBeanProvider(JsonBinding.class).getIfUnique();
		if (binding == null && ClassUtils.isPresent("tools.jackson.databind.json.JsonMapper", LOADER)) {
			binding = Jackson3.of(beanFactory);
		}
		if (binding == null && ClassUtils.isPresent("com.fasterxml.jackson.databind.ObjectMapper", LOADER)) {
			binding = Jackson2.of(beanFactory);
		}
		return (binding != null) ? binding : JsonBindings.detect();
	}

	/** Loaded only when Jackson 3 is on the classpath. */
	private static final class Jackson3 {

		static @Nullable JsonBinding of(BeanFactory beanFactory) {
			tools.jackson.databind.json.JsonMapper mapper = beanFactory
				.getBeanProvider(tools.jackson.databind.json.JsonMapper.class)
				.getIfUnique();
			return (mapper != null) ? new Jackson3Binding(mapper) : null;
		}

	}

	/** Loaded only when Jackson 2 is on the classpath. */
	private static final class Jackson2 {

		static @Nullable JsonBinding of(BeanFactory beanFactory) {
			com.fasterxml.jackson.databind.ObjectMapper mapper = beanFactory
				.getBeanProvider(com.fasterxml.jackson.databind.ObjectMapper.class)
				.getIfUnique();
			return (mapper != null) ? new Jackson2Binding(mapper) : null;
		}

	}

}
