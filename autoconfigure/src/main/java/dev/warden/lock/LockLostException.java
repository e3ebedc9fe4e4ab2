package dev.warden.lock;

import java.util.List;

import dev.warden.WardenException;

/**
 * Thrown after an annotated method returned when a lock it held was lost while it ran: its lease
 * ran out, or it was force-unlocked. The method's work was not protected by the lock for all of
 * its run. (Set {@code warden.lock.fail-on-lost-lease=false} to only log it.)
 */
public class LockLostException extends WardenException {

	private static final long serialVersionUID = 1L;

	/**
	 * The locks the method held.
	 */
	private final List<String> lockNames;

	/**
	 * A lock lost while the method ran.
	 * @param method the method, as the message names it
	 * @param lockNames the locks it held
	 * @param cause the failure that reported the loss
	 */
	public LockLostException(String method, List<String> lockNames, Throwable cause) {
		super("Lock" + (lockNames.size() > 1 ? "s " : " ") + lockNames + " held by " + method
				+ " was lost before it returned (lease expired or force-unlocked)", cause);
		this.lockNames = List.copyOf(lockNames);
	}

	/** {@return the locks the method held} */
	public List<String> getLockNames() {
		return lockNames;
	}

}
