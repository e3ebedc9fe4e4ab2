package dev.warden.task.interceptor;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * What {@link AnnotationDurations} reads, exactly as its javadoc lists it: the simple form with its
 * units (milliseconds without one), ISO-8601 up to days, placeholders; and what it refuses.
 */
class AnnotationDurationsTests {

	private final StandardEnvironment placeholders = new StandardEnvironment();

	AnnotationDurationsTests() {
		placeholders.getPropertySources()
			.addFirst(new MapPropertySource("test", Map.of("orders.timeout", "30m", "orders.days", "14")));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '=', value = { "10ns=PT0.00000001S", "5us=PT0.000005S", "500ms=PT0.5S", "30s=PT30S",
			"1m=PT1M", "1M=PT1M", "2h=PT2H", "1H=PT1H", "14d=PT336H", "30=PT0.03S", "0=PT0S", "+5s=PT5S",
			"-5s=PT-5S", "' 30m '=PT30M", "PT30M=PT30M", "pt30m=PT30M", "PT0.5S=PT0.5S", "P2D=PT48H",
			"P1DT2H=PT26H", "-PT5M=PT-5M", "${orders.timeout}=PT30M", "${orders.days}d=PT336H" })
	void readsTheSimpleFormAndIso8601(String text, String expected) {
		assertThat(AnnotationDurations.parse(placeholders, "@DelayedTask on Orders.close", "delay", text))
			.isEqualTo(Duration.parse(expected));
	}

	@ParameterizedTest
	@ValueSource(strings = { "1.5h", "10 s", "1_000ms", "1w", "P1W", "P1M", "P1Y", "PT", "", "soon",
			"99999999999999999d" })
	void refusesEverythingElseNamingTheAttribute(String text) {
		assertThatIllegalStateException()
			.isThrownBy(() -> AnnotationDurations.parse(placeholders, "@DelayedTask on Orders.close", "delay", text))
			.withMessageContaining("@DelayedTask on Orders.close has delay '" + text + "'")
			.withMessageContaining("not a duration such as 30m, 500ms or PT30M");
	}

}
