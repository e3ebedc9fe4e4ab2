package dev.warden.lock;

import java.util.List;

import dev.warden.WardenException;

/**
 * Thrown when a lock required by an annotated method was not acquired within its wait.
 */
public class LockAcquisitionException extends WardenException {

	private static final long serialVersionUID = 1L;

	/**
	 * The names of the locks that were required.
	 */
	private final List<String> lockNames;

	/**
	 * How long the caller waited, in milliseconds.
	 */
	private final long waitMillis;

	/**
	 * The locks were not acquired within the wait.
	 * @param lockNames the required locks
	 * @param waitMillis the wait
	 */
	public LockAcquisitionException(List<String> lockNames, long waitMillis) {
		super(message(lockNames, waitMillis));
		this.lockNames = List.copyOf(lockNames);
		this.waitMillis = waitMillis;
	}

	/**
	 * The wait was cut short by {@code cause}, an interrupt for one.
	 * @param lockNames the required locks
	 * @param waitMillis the wait
	 * @param cause why the wait ended early
	 */
	public LockAcquisitionException(List<String> lockNames, long waitMillis, Throwable cause) {
		super(message(lockNames, waitMillis) + ": " + cause, cause);
		this.lockNames = List.copyOf(lockNames);
		this.waitMillis = waitMillis;
	}

	private static String message(List<String> lockNames, long waitMillis) {
		return "Could not acquire lock" + (lockNames.size() > 1 ? "s " : " ") + String.join(", ", quoted(lockNames))
				+ " within " + waitMillis + " ms";
	}

	/** {@return the names of the locks that were required (all of them, for a multi-key lock)} */
	public List<String> getLockNames() {
		return lockNames;
	}

	/** {@return how long the caller waited, in milliseconds} */
	public long getWaitMillis() {
		return waitMillis;
	}

	private static List<String> quoted(List<String> names) {
		return names.stream().map(name -> "'" + name + "'").toList();
	}

}
