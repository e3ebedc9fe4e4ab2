package dev.warden.task;

/**
 * What a recurring job does with an occurrence that starts later than the misfire threshold after
 * its due time: no instance was up when it was due (or all were busy), or, for a fixed rate, the
 * job's run before it went on past it (the slot that follows such a run is due at once, and counts
 * as late as it is).
 */
public enum Misfire {

	/** Run it once, late, then go on from the next occurrence after now: missed runs are not made up. */
	RUN_ONCE,

	/** Do not run it; go on from the next occurrence after now. */
	SKIP

}
