package dev.warden.samples.invoices;

import java.io.IOException;
import java.math.BigDecimal;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import org.springframework.boot.jackson.JsonComponent;

/**
 * An amount in a currency, written in JSON as one string, {@code "12.50 EUR"}, by the application's
 * own Jackson 2 serializers, which Spring Boot registers with its {@code ObjectMapper}.
 *
 * @param value the amount
 * @param currency its ISO 4217 code
 */
public record Money(BigDecimal value, String currency) {

	@Override
	public String toString() {
		return value.toPlainString() + " " + currency;
	}

	static Money parse(String text) {
		String[] parts = text.trim().split(" ");
		if (parts.length != 2) {
			throw new IllegalArgumentException("Not an amount and a currency: " + text);
		}
		return new Money(new BigDecimal(parts[0]), parts[1]);
	}

	/** The application's JSON form of money. */
	@JsonComponent
	static class Json {

		static class Writer extends JsonSerializer<Money> {

			@Override
			public void serialize(Money money, JsonGenerator json, SerializerProvider serializers) throws IOException {
				json.writeString(money.toString());
			}

		}

		static class Reader extends JsonDeserializer<Money> {

			@Override
			public Money deserialize(JsonParser json, DeserializationContext context) throws IOException {
				return parse(json.getValueAsString());
			}

		}

	}

}
