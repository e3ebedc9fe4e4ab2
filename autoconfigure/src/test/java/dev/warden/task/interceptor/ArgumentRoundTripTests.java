package dev.warden.task.interceptor;

import java.util.List;
import java.util.Map;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Type;
import java.util.stream.Stream;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.warden.json.Jackson2Binding;
import dev.warden.json.Jackson3Binding;
import dev.warden.json.JsonBinding;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.core.ResolvableType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The startup proof that a task argument's type survives the trip through JSON: it names what would
 * be lost, and accepts what is carried whole, through Jackson 3 (Spring Boot 4) and Jackson 2 (Spring
 * Boot 3) alike.
 */
class ArgumentRoundTripTests {

	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.METHOD)
	@ParameterizedTest(name = "{0}")
	@MethodSource("dev.warden.task.interceptor.ArgumentRoundTripTests#bindings")
	@interface EachBinding {

	}

	static Stream<JsonBinding> bindings() {
		return Stream.of(Jackson3Binding.withModules(), Jackson2Binding.withModules());
	}

	@EachBinding
	void aPrivateFieldWithoutAGetterIsNamed(JsonBinding binding) {
		assertThat(problem(binding, Bag.class)).contains(Bag.class.getName() + ".n is not written to JSON");
	}

	@EachBinding
	void aPropertyThatCannotBeReadBackIsNamed(JsonBinding binding) {
		assertThat(problem(binding, ReadOnly.class)).contains("'n'").contains("not read back");
	}

	@EachBinding
	void aTypeThatLosesSomethingInsideAContainerOrAPropertyIsNamed(JsonBinding binding) {
		assertThat(problem(binding, ResolvableType.forClassWithGenerics(List.class, Bag.class).getType()))
			.contains(Bag.class.getName());
		assertThat(problem(binding, Bag[].class)).contains(Bag.class.getName());
		assertThat(problem(binding, Wrapper.class)).contains(Bag.class.getName());
	}

	@EachBinding
	void beansRecordsEnumsJdkTypesAndIgnoredFieldsPass(JsonBinding binding) {
		assertThat(problem(binding, Order.class)).isNull();
		assertThat(problem(binding, Line.class)).isNull();
		assertThat(problem(binding, WithIgnored.class)).isNull();
		assertThat(problem(binding, Computed.class)).isNull();
		assertThat(problem(binding, Scheduled.class)).as("JDK value types are sampled").isNull();
		assertThat(problem(binding, Checked.class)).as("a creator's own check is not a loss").isNull();
		assertThat(problem(binding, String.class)).isNull();
		assertThat(problem(binding, Status.class)).isNull();
		assertThat(problem(binding, ResolvableType.forClassWithGenerics(Map.class, String.class, Line.class).getType()))
			.isNull();
	}

	@EachBinding
	void aTypeWrittenAsAValueOfItsOwnPasses(JsonBinding binding) {
		assertThat(problem(binding, Money.class)).isNull();
		assertThat(problem(binding, Priced.class)).isNull();
		assertThat(binding.read(binding.write(new Priced("p", Money.parse("12.50 EUR")), Priced.class), Priced.class))
			.isEqualTo(new Priced("p", Money.parse("12.50 EUR")));
	}

	private static String problem(JsonBinding binding, Type type) {
		return new ArgumentRoundTrip(binding).problem(binding.describe(type));
	}

	/** Written as one string by a method of its own, with no getter for its fields. */
	public static final class Money {

		private final java.math.BigDecimal amount;

		private final String currency;

		private Money(java.math.BigDecimal amount, String currency) {
			this.amount = amount;
			this.currency = currency;
		}

		@JsonCreator
		public static Money parse(String text) {
			String[] parts = text.split(" ");
			return new Money(new java.math.BigDecimal(parts[0]), parts[1]);
		}

		@JsonValue
		public String text() {
			return amount.toPlainString() + " " + currency;
		}

		@Override
		public boolean equals(Object other) {
			return other instanceof Money money && money.text().equals(text());
		}

		@Override
		public int hashCode() {
			return text().hashCode();
		}

	}

	public record Priced(String sku, Money price) {
	}

	public static class Bag {

		private int n;

		public Bag(int n) {
			this.n = n;
		}

		public Bag() {
		}

		@Override
		public String toString() {
			return "Bag" + n;
		}

	}

	public static class ReadOnly {

		private int n;

		@JsonProperty(access = JsonProperty.Access.READ_ONLY)
		public int getN() {
			return n;
		}

		public void setN(int n) {
			this.n = n;
		}

		/** Computed from the state: written, and rightly not read back. */
		public boolean isPositive() {
			return n > 0;
		}

	}

	public static class Computed {

		private int n;

		public int getN() {
			return n;
		}

		public void setN(int n) {
			this.n = n;
		}

		public boolean isPositive() {
			return n > 0;
		}

	}

	public static class Wrapper {

		private Bag bag = new Bag(1);

		public Bag getBag() {
			return bag;
		}

		public void setBag(Bag bag) {
			this.bag = bag;
		}

	}

	public record Scheduled(String id, java.time.Instant at, java.time.Duration every, java.util.UUID key,
			java.math.BigDecimal amount) {
	}

	/** Refuses what it cannot use: a sample may trip such a check without anything being lost. */
	public record Checked(String id, int quantity) {

		public Checked {
			if (!id.startsWith("order-")) {
				throw new IllegalArgumentException("not an order id: " + id);
			}
		}

	}

	public enum Status {

		OPEN, CLOSED

	}

	public record Line(String sku, int quantity, Status status) {
	}

	public static class Order {

		private String id;

		private List<Line> lines;

		private boolean paid;

		public String getId() {
			return id;
		}

		public void setId(String id) {
			this.id = id;
		}

		public List<Line> getLines() {
			return lines;
		}

		public void setLines(List<Line> lines) {
			this.lines = lines;
		}

		public boolean isPaid() {
			return paid;
		}

		public void setPaid(boolean paid) {
			this.paid = paid;
		}

	}

	public static class WithIgnored {

		private String kept;

		@JsonIgnore
		private transient Object cache;

		@JsonIgnore
		private int derived;

		public String getKept() {
			return kept;
		}

		public void setKept(String kept) {
			this.kept = kept;
		}

	}

}
