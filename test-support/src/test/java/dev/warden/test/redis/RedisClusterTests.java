package dev.warden.test.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RedisClusterTests {

	@Test
	void threeMastersShareAllSlots() {
		try (RedisCluster cluster = RedisCluster.start(3)) {
			assertThat(cluster.nodes()).hasSize(3);
			for (RedisNode node : cluster.nodes()) {
				String info = (String) node.call("CLUSTER", "INFO");
				assertThat(info).contains("cluster_state:ok").contains("cluster_slots_assigned:16384");
			}
			assertThat(cluster.hostsAndPorts()).contains(cluster.nodes().get(2).host() + ":" + cluster.nodes().get(2).port());
		}
	}

}
