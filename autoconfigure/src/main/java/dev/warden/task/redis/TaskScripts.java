package dev.warden.task.redis;

import dev.warden.redis.LuaScript;

/** The delayed queue's scripts, read and digested once. */
final class TaskScripts {

	private static final String CLOCK = LuaScript.CLOCK;

	/** The helpers of the scripts that work on a batch of tasks or drop a task's state. */
	private static final String BATCH_HELPERS = "task-batch.lua";

	/** The helpers of the scripts that keep the dead letters and their index by failure time. */
	private static final String DEAD_HELPERS = "task-dead.lua";

	/** The helpers of the scripts that show tasks to an operator, their payloads cut to their first bytes. */
	private static final String EXCERPT_HELPERS = "task-excerpt.lua";

	/** The helpers of the scripts that take a task claimed ahead away from its consumer. */
	private static final String REVOKE_HELPERS = "task-revoke.lua";

	/** The helpers of the scripts that keep the slots and deferred tasks of task limits. */
	private static final String LIMIT_HELPERS = "task-limits.lua";

	/** The helpers of the scripts that read and end a delivery's claim, in either stored format. */
	private static final String CLAIM_HELPERS = "task-claim-state.lua";

	/** The helpers of the scripts that end a delivery without completing it: after the four above. */
	private static final String END_HELPERS = "task-end.lua";

	static final LuaScript SCHEDULE = LuaScript.load(TaskScripts.class, "task-schedule.lua", CLOCK, BATCH_HELPERS,
			CLAIM_HELPERS, REVOKE_HELPERS);

	static final LuaScript CLAIM = LuaScript.load(TaskScripts.class, "task-claim.lua", CLOCK, BATCH_HELPERS,
			CLAIM_HELPERS, LIMIT_HELPERS);

	static final LuaScript FAIL = LuaScript.load(TaskScripts.class, "task-fail.lua", CLOCK, BATCH_HELPERS,
			DEAD_HELPERS, LIMIT_HELPERS, CLAIM_HELPERS, END_HELPERS);

	static final LuaScript CANCEL = LuaScript.load(TaskScripts.class, "task-cancel.lua", CLOCK, BATCH_HELPERS,
			CLAIM_HELPERS, REVOKE_HELPERS);

	static final LuaScript RESCHEDULE = LuaScript.load(TaskScripts.class, "task-reschedule.lua", CLOCK,
			CLAIM_HELPERS, REVOKE_HELPERS);

	static final LuaScript DUE = LuaScript.load(TaskScripts.class, "task-due.lua", CLOCK, CLAIM_HELPERS,
			REVOKE_HELPERS);

	static final LuaScript REQUEUE_DEAD = LuaScript.load(TaskScripts.class, "task-requeue-dead.lua", CLOCK,
			DEAD_HELPERS);

	static final LuaScript LEAVE = LuaScript.load(TaskScripts.class, "task-leave.lua", CLOCK, BATCH_HELPERS,
			DEAD_HELPERS, LIMIT_HELPERS, CLAIM_HELPERS, END_HELPERS);

	static final LuaScript LIST = LuaScript.load(TaskScripts.class, "task-list.lua");

	static final LuaScript PENDING_PAGE = LuaScript.load(TaskScripts.class, "task-pending-page.lua",
			EXCERPT_HELPERS);

	static final LuaScript ONE = LuaScript.load(TaskScripts.class, "task-one.lua", EXCERPT_HELPERS);

	static final LuaScript STATS = LuaScript.load(TaskScripts.class, "task-stats.lua");

	static final LuaScript EXTEND = LuaScript.load(TaskScripts.class, "task-extend.lua", CLOCK, CLAIM_HELPERS);

	static final LuaScript HAND_BACK = LuaScript.load(TaskScripts.class, "task-hand-back.lua", CLOCK, CLAIM_HELPERS);

	static final LuaScript ADMIT = LuaScript.load(TaskScripts.class, "task-admit.lua", CLOCK, LIMIT_HELPERS,
			CLAIM_HELPERS);

	static final LuaScript UNPARK = LuaScript.load(TaskScripts.class, "task-unpark.lua", LIMIT_HELPERS);

	static final LuaScript START = LuaScript.load(TaskScripts.class, "task-start.lua", CLAIM_HELPERS);

	static final LuaScript DEAD_PAGE = LuaScript.load(TaskScripts.class, "task-dead-page.lua", DEAD_HELPERS,
			EXCERPT_HELPERS);

	static final LuaScript DEAD_PURGE = LuaScript.load(TaskScripts.class, "task-dead-purge.lua", DEAD_HELPERS);

	static final LuaScript DEAD_REQUEUE = LuaScript.load(TaskScripts.class, "task-dead-requeue.lua", CLOCK,
			DEAD_HELPERS);

	static final LuaScript RECURRING_SWAP = LuaScript.load(TaskScripts.class, "recurring-swap.lua");

	private TaskScripts() {
	}

}
