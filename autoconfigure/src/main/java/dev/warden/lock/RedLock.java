package dev.warden.lock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link DistributedRedLock} over one {@link DistributedReentrantLock} per independent node.
 */
public final class RedLock implements DistributedRedLock {

	private static final Logger logger = LoggerFactory.getLogger(RedLock.class);

	/** The fewest nodes that make a RedLock meaningful. */
	public static final int MINIMUM_NODES = 3;

	private static final long MAX_RETRY_PAUSE_MILLIS = 50;

	private final String name;

	private final List<DistributedReentrantLock> nodes;

	private final Supplier<LockOwner> currentThreadOwner;

	/**
	 * @param name the lock's name
	 * @param nodes the same lock on each independent node; at least {@link #MINIMUM_NODES}
	 * @param currentThreadOwner the owner of the calling thread
	 */
	public RedLock(String name, List<DistributedReentrantLock> nodes, Supplier<LockOwner> currentThreadOwner) {
		if (nodes == null || nodes.size() < MINIMUM_NODES) {
			throw new IllegalStateException("A RedLock needs at least " + MINIMUM_NODES + " independent Redis nodes; "
					+ (nodes == null ? 0 : nodes.size()) + " configured (warden.redlock.nodes)");
		}
		this.name = name;
		this.nodes = List.copyOf(nodes);
		this.currentThreadOwner = currentThreadOwner;
	}

	@Override
	public String getName() {
		return name;
	}

	@Override
	public int quorum() {
		return nodes.size() / 2 + 1;
	}

	@Override
	public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
		return tryLock(currentThreadOwner.get(), waitTime, leaseTime, unit);
	}

	@Override
	public boolean tryLock(LockOwner owner, long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
		if (waitTime < 0 || leaseTime <= 0) {
			throw new IllegalArgumentException("The wait must not be negative and the lease must be positive: " + waitTime
					+ ", " + leaseTime + " " + unit);
		}
		long leaseMillis = Math.max(1, unit.toMillis(leaseTime));
		long deadline = System.nanoTime() + unit.toNanos(waitTime);
		while (true) {
			if (attempt(owner, leaseMillis)) {
				return true;
			}
			long remaining = deadline - System.nanoTime();
			if (remaining <= 0) {
				return false;
			}
			// A random pause, so that contenders that split the nodes do not collide again in step.
			long pause = ThreadLocalRandom.current().nextLong(1, MAX_RETRY_PAUSE_MILLIS + 1);
			TimeUnit.NANOSECONDS.sleep(Math.min(remaining, TimeUnit.MILLISECONDS.toNanos(pause)));
		}
	}

	private boolean attempt(LockOwner owner, long leaseMillis) throws InterruptedException {
		long start = System.nanoTime();
		List<DistributedReentrantLock> granted = new ArrayList<>(nodes.size());
		int refused = 0;
		int quorum = quorum();
		for (DistributedReentrantLock node : nodes) {
			if (refused > nodes.size() - quorum) {
				break;
			}
			try {
				if (node.tryLock(owner, 0, leaseMillis, TimeUnit.MILLISECONDS)) {
					granted.add(node);
				}
				else {
					refused++;
				}
			}
			catch (RuntimeException ex) {
				// A node that is down counts as a refusal.
				logger.debug("RedLock '{}' could not reach a node", name, ex);
				refused++;
			}
		}
		long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		long drift = leaseMillis / 100 + 2;
		long validity = leaseMillis - elapsedMillis - drift;
		if (granted.size() >= quorum && validity > 0) {
			return true;
		}
		releaseQuietly(owner, nodes);
		return false;
	}

	@Override
	public void unlock() {
		unlock(currentThreadOwner.get());
	}

	@Override
	public void unlock(LockOwner owner) {
		if (releaseQuietly(owner, nodes) == 0) {
			throw new IllegalMonitorStateException("Cannot unlock RedLock '" + name + "': not held by " + owner
					+ " on any node");
		}
	}

	/** Releases on every node that has the hold; returns how many did. */
	private int releaseQuietly(LockOwner owner, List<DistributedReentrantLock> on) {
		int released = 0;
		for (DistributedReentrantLock node : on) {
			try {
				node.unlock(owner);
				released++;
			}
			catch (RuntimeException ex) {
				// Not held there, or the node is down: its hold expires with the lease.
			}
		}
		return released;
	}

	@Override
	public String toString() {
		return "RedLock[" + name + " on " + nodes.size() + " nodes]";
	}

}
