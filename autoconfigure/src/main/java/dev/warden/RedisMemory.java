package dev.warden;

/**
 * Redis's memory, as {@code INFO memory} gives it.
 *
 * @param usedMemory {@code used_memory}, in bytes
 * @param maxMemory {@code maxmemory}, in bytes; 0 when Redis has no limit
 * @param policy {@code maxmemory_policy}; {@code noeviction} refuses writes at the limit, the others
 * evict keys
 */
public record RedisMemory(long usedMemory, long maxMemory, String policy) {

	/** {@return the share of {@code maxmemory} in use, from 0 to 1 (and above); 0 without a limit} */
	public double usage() {
		return (maxMemory > 0) ? (double) usedMemory / maxMemory : 0;
	}

	/** Reads the figures from the text of {@code INFO memory}. */
	static RedisMemory parse(String info) {
		long used = 0;
		long max = 0;
		String policy = "noeviction";
		for (String line : info.split("\r?\n")) {
			int colon = line.indexOf(':');
			if (colon < 0) {
				continue;
			}
			String value = line.substring(colon + 1).trim();
			switch (line.substring(0, colon)) {
				case "used_memory" -> used = Long.parseLong(value);
				case "maxmemory" -> max = Long.parseLong(value);
				case "maxmemory_policy" -> policy = value;
				default -> {
					// Not one of these figures.
				}
			}
		}
		return new RedisMemory(used, max, policy);
	}

}
