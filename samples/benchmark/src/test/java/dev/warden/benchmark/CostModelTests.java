package dev.warden.benchmark;

import dev.warden.benchmark.CostModel.Costs;
import dev.warden.benchmark.CostModel.Machine;
import dev.warden.benchmark.CostModel.Prediction;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The cost model's arithmetic, on made-up costs. */
class CostModelTests {

	private static final Costs NO_OP_64 = new Costs(1, 4, 8, 20, 0);

	@Test
	void theMachineIsReadOffItsNoOpCeiling() {
		// The no-op's largest cost at 64 callers is its event loop's 8 µs: 100 k calls/s means 10 µs there.
		Machine machine = CostModel.machine(25_000, 100_000, NO_OP_64, 16);
		assertThat(machine.roundTripMicros()).isCloseTo(40, within(1e-9));
		assertThat(machine.speed()).isCloseTo(1.25, within(1e-9));
		// On 2 cores the CPU bound (20 + 4) / 2 = 12 µs is the largest instead.
		assertThat(CostModel.machine(25_000, 100_000, NO_OP_64, 2).speed()).isCloseTo(10 / 12.0, within(1e-9));
	}

	@Test
	void eachBoundIsItsResourcesCapacityOverTheOperationsCost() {
		Machine machine = new Machine(40, 0.5, 16);
		// Two round trips that take 2.5 no-op round trips of 40 µs with one caller.
		Prediction prediction = CostModel.throughput(new Costs(2, 20, 10, 60, 2.5), 8, machine);
		assertThat(prediction.bounds()).extracting(CostModel.Bound::name)
			.containsExactly("Redis", "event loop", "CPU", "latency");
		assertThat(prediction.bounds()).extracting(CostModel.Bound::perSecond)
			.containsExactly(1e6 / 10, 1e6 / 5, 16e6 / 40, 8e6 / 100);
		// 80 k pairs/s from the callers' latency, under Redis's 100 k.
		assertThat(prediction.binding().name()).isEqualTo("latency");
		assertThat(prediction.perSecond()).isCloseTo(80_000, within(1e-6));
		assertThat(prediction.headroom()).isCloseTo(1.25, within(1e-9));
	}

	@Test
	void moreCallersMoveTheBindingBoundToASharedResource() {
		Machine machine = new Machine(40, 0.5, 16);
		Costs costs = new Costs(2, 20, 10, 60, 2.5);
		assertThat(CostModel.throughput(costs, 1, machine).binding().name()).isEqualTo("latency");
		assertThat(CostModel.throughput(costs, 64, machine).binding().name()).isEqualTo("Redis");
		// A client with a busier event loop than Redis is held back by its event loop.
		assertThat(CostModel.throughput(new Costs(2, 20, 30, 60, 2.5), 64, machine).binding().name())
			.isEqualTo("event loop");
		// On 2 cores the client's CPU is the limit.
		assertThat(CostModel.throughput(costs, 64, new Machine(40, 0.5, 2)).binding().name()).isEqualTo("CPU");
	}

	@Test
	void oneKeyIsBoundByItsHandOverChainOfUncontendedRoundTrips() {
		Machine machine = new Machine(40, 0.5, 16);
		// An uncontended pair: 2 round trips in 2.5 no-op round trips of 40 µs, 50 µs each.
		Costs pair = new Costs(2, 20, 10, 60, 2.5);
		Costs acquisition = new Costs(3, 10, 5, 50, Double.NaN);
		Prediction oneRoundTrip = CostModel.serialised(acquisition, pair, 1, machine);
		Prediction twoRoundTrips = CostModel.serialised(acquisition, pair, 2, machine);
		assertThat(oneRoundTrip.binding().name()).isEqualTo("hand-over chain");
		assertThat(oneRoundTrip.perSecond()).isCloseTo(20_000, within(1e-6));
		assertThat(twoRoundTrips.perSecond()).isCloseTo(10_000, within(1e-6));
		assertThat(oneRoundTrip.bounds()).extracting(CostModel.Bound::name).doesNotContain("latency");
		// A successor that takes 50 µs more to wake lengthens each hand-over by that.
		assertThat(CostModel.serialised(acquisition, pair, 1, 50, machine).perSecond()).isCloseTo(1e4, within(1e-6));
		// A Redis that costs more per acquisition than the chain takes binds instead.
		assertThat(CostModel.serialised(new Costs(3, 120, 5, 50, Double.NaN), pair, 1, machine).binding().name())
			.isEqualTo("Redis");
	}

	@Test
	void aDrainIsBoundByItsConsumersChainOfRequests() {
		Machine machine = new Machine(40, 0.5, 16);
		// One request per 8 tasks: 5 µs of round trip, 0.5 × (20 + 10) = 15 µs of Redis and event loop per task.
		Costs batched = new Costs(0.125, 20, 10, 60, 0.125);
		Prediction oneConsumer = CostModel.drain(batched, 1, machine);
		assertThat(oneConsumer.binding().name()).isEqualTo("consumer chain");
		assertThat(oneConsumer.perSecond()).isCloseTo(1e6 / 20, within(1e-6));
		assertThat(oneConsumer.bounds()).extracting(CostModel.Bound::name).doesNotContain("latency");
		// Eight consumers of one task per request: 8 / (40 + 15) µs, above Redis's 1 / 10 µs, which binds.
		Prediction eight = CostModel.drain(new Costs(1, 20, 10, 60, 1), 8, machine);
		assertThat(eight.bounds()).extracting(CostModel.Bound::perSecond).contains(8e6 / 55);
		assertThat(eight.binding().name()).isEqualTo("Redis");
		assertThat(eight.perSecond()).isCloseTo(1e5, within(1e-6));
	}

}
