package dev.warden.task.interceptor;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The startup proof that a task argument's type survives the trip through JSON: it names what would
 * be lost, and accepts what is carried whole.
 */
class ArgumentRoundTripTests {

	private final JsonMapper mapper = JsonMapper.builder().findAndAddModules().build();

	private final ArgumentRoundTrip roundTrip = new ArgumentRoundTrip(mapper);

	@Test
	void aPrivateFieldWithoutAGetterIsNamed() {
		assertThat(problem(Bag.class)).contains(Bag.class.getName() + ".n is not written to JSON");
	}

	@Test
	void aPropertyThatCannotBeReadBackIsNamed() {
		assertThat(problem(ReadOnly.class)).contains("'n'").contains("not read back");
	}

	@Test
	void aTypeThatLosesSomethingInsideAContainerOrAPropertyIsNamed() {
		assertThat(roundTrip.problem(mapper.getTypeFactory().constructCollectionType(List.class, Bag.class)))
			.contains(Bag.class.getName());
		assertThat(problem(Wrapper.class)).contains(Bag.class.getName());
	}

	@Test
	void beansRecordsEnumsJdkTypesAndIgnoredFieldsPass() {
		assertThat(problem(Order.class)).isNull();
		assertThat(problem(Line.class)).isNull();
		assertThat(problem(WithIgnored.class)).isNull();
		assertThat(problem(Computed.class)).isNull();
		assertThat(problem(Scheduled.class)).as("JDK value types are sampled").isNull();
		assertThat(problem(Checked.class)).as("a creator's own check is not a loss").isNull();
		assertThat(problem(String.class)).isNull();
		assertThat(problem(Status.class)).isNull();
		assertThat(roundTrip.problem(mapper.getTypeFactory().constructMapType(Map.class, String.class, Line.class)))
			.isNull();
	}

	private String problem(Class<?> type) {
		return roundTrip.problem(mapper.constructType(type));
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
