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

	private final List<String> lockNames;

	public LockLostException(String method, List<String> lockNames, Throwable cause) {
		super("Lock" + (lockNames.size() > 1 ? "s " : " ") + lockNames + " held by " + method
				+ " was lost before it returned (lease expired or force-unlocked)", cause);
		this.lockNames = List.copyOf(lockNames);
	}

	/** The locks the method held. */
	public List<String> getLockNames() {
		return lockNames;
	}

}
