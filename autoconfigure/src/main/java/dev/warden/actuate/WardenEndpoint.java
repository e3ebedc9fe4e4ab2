package dev.warden.actuate;

import dev.warden.WardenNames;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;

/**
 * The {@code warden} Actuator endpoint.
 * <ul>
 * <li>{@code GET /actuator/warden}: this client's id and Redis topology, the locks this instance
 * holds through {@code @DistributedLock}, and every queue in Redis with its pending, in-flight and
 * dead-letter counts and next due time.</li>
 * <li>{@code GET /actuator/warden/queues/{queue}?offset=0&limit=20}: one page of the queue's pending
 * tasks and one of its dead letters, each with id, time, attempts, last error, the first 256 bytes of
 * its payload and the payload's size.</li>
 * <li>{@code GET /actuator/warden/queues/{queue}/{taskId}}: one task with its whole payload, pending
 * or dead letter.</li>
 * <li>{@code POST /actuator/warden/queues/{queue}} with a JSON body {@code {"action": …}}, only when
 * {@code warden.endpoint.write-operations=true} (403 otherwise): {@code redrive} (one dead letter by
 * {@code taskId}, or those that failed between {@code failedFrom} and {@code failedTo}, all without
 * them), {@code purge} (one by {@code taskId}, or those that failed before {@code failedBefore}, all
 * without it), {@code cancel} (the pending task {@code taskId}).</li>
 * <li>{@code GET /actuator/warden/dashboard}: the dashboard, a page that shows the above and, with
 * write operations on, re-drives dead letters through the endpoint's own write operation.</li>
 * </ul>
 * A web endpoint (its answers carry HTTP statuses): expose it like any other
 * ({@code management.endpoints.web.exposure.include=warden}) and secure it like the others: it shows
 * payloads and can change queues. It is served where the Actuator is (its base path and, when set,
 * its port) and follows its exposure, access and {@code EndpointRequest} matchers, the dashboard
 * with it.
 * <p>
 * A write takes a JSON body only, which a page of another origin cannot send without a CORS
 * preflight (nothing here answers one unless {@code management.endpoints.web.cors} is set); a write
 * that the browser marks {@code cross-site} or {@code same-site} ({@code Sec-Fetch-Site}), or that
 * names another origin ({@code Origin}), is refused with 403 whatever else it carries. Only the queues
 * this application consumes are changed unless {@code warden.endpoint.write-scope=all-queues}.
 */
@WebEndpoint(id = "warden")
public class WardenEndpoint {

	private static final Logger logger = LoggerFactory.getLogger(WardenEndpoint.class);

	private static final String QUEUES = "queues";

	private static final String PAYLOADS = "payloads";

	private static final String DASHBOARD = "dashboard";

	private final WardenAdmin admin;

	private final DashboardPage dashboard = new DashboardPage();

	/** @param admin what the endpoint shows and does */
	public WardenEndpoint(WardenAdmin admin) {
		this.admin = admin;
	}

	/**
	 * The dashboard ({@code dashboard}): one HTML page from the jar that reads this endpoint, with
	 * Spring Security's CSRF token for its writes when the request carries one.
	 * @param page {@code dashboard}
	 * @return the page, or 404 for another name
	 */
	@ReadOperation(produces = "text/html;charset=UTF-8")
	public WebEndpointResponse<String> page(@Selector String page) {
		if (!DASHBOARD.equals(page)) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		return new WebEndpointResponse<>(dashboard.render());
	}

	/** {@return the client, the locks held here, and every queue with its counts} */
	@ReadOperation
	public WardenAdmin.Overview overview() {
		return admin.overview();
	}

	/**
	 * One page of a queue's pending tasks and dead letters ({@code queues/<queue>}), or the check of
	 * the payloads of a queue this instance consumes against the classes deployed now
	 * ({@code payloads/<queue>}: its earliest 100 pending tasks and latest 100 dead letters, with the
	 * ids of those that cannot be read and why).
	 * @param section {@code queues} or {@code payloads}
	 * @param queue the queue's name
	 * @param offset how many of each to skip (0 when absent)
	 * @param limit how many of each at most, up to 1,000 (20 when absent)
	 * @return the page or the check, or 404 for another section or a queue this instance does not
	 * consume, or 400 for a bad page or a queue name with a control character
	 */
	@ReadOperation
	@SuppressWarnings("deprecation")
	public WebEndpointResponse<Object> queue(@Selector String section, @Selector String queue,
			@org.springframework.lang.Nullable @Nullable Integer offset,
			@org.springframework.lang.Nullable @Nullable Integer limit) {
		if (!PAYLOADS.equals(section) && !QUEUES.equals(section)) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		try {
			if (PAYLOADS.equals(section)) {
				return admin.checkPayloads(queue)
					.map(check -> new WebEndpointResponse<Object>(check))
					.orElseGet(() -> new WebEndpointResponse<>(new WardenAdmin.Problem("This instance does not consume "
							+ "queue '" + queue + "'"), WebEndpointResponse.STATUS_NOT_FOUND));
			}
			return new WebEndpointResponse<>(admin.queue(queue, (offset != null) ? offset : 0,
					(limit != null) ? limit : WardenAdmin.DEFAULT_PAGE));
		}
		catch (IllegalArgumentException ex) {
			return new WebEndpointResponse<>(new WardenAdmin.Problem(ex.getMessage()), WebEndpointResponse.STATUS_BAD_REQUEST);
		}
	}

	/**
	 * One task of a queue with its whole payload ({@code queues/<queue>/<taskId>}): the pending task
	 * and the dead letter of that id.
	 * @param section {@code queues}
	 * @param queue the queue's name
	 * @param taskId the task id
	 * @return the task, or 404 for another section or when the queue has no task of that id
	 */
	@ReadOperation
	public WebEndpointResponse<Object> task(@Selector String section, @Selector String queue,
			@Selector String taskId) {
		if (!QUEUES.equals(section)) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		try {
			return admin.task(queue, taskId)
				.map(task -> new WebEndpointResponse<Object>(task))
				.orElseGet(() -> new WebEndpointResponse<>(new WardenAdmin.Problem("Queue '" + queue
						+ "' has no pending task nor dead letter '" + taskId + "'"), WebEndpointResponse.STATUS_NOT_FOUND));
		}
		catch (IllegalArgumentException ex) {
			return new WebEndpointResponse<>(new WardenAdmin.Problem(ex.getMessage()), WebEndpointResponse.STATUS_BAD_REQUEST);
		}
	}

	/**
	 * Re-drives or purges dead letters, or cancels a pending task.
	 * @param section {@code queues}
	 * @param queue the queue's name
	 * @param action {@code redrive}, {@code purge} or {@code cancel}
	 * @param taskId one task, or {@code null}
	 * @param failedFrom a range's start for {@code redrive} (ISO-8601), or {@code null}
	 * @param failedTo a range's end for {@code redrive} (ISO-8601), or {@code null}
	 * @param failedBefore the bound of {@code purge} (ISO-8601), or {@code null}
	 * @return what was done; 400 for a bad request (a queue name with a control character among them),
	 * 403 while write operations are off, for a queue outside {@code warden.endpoint.write-scope}, or for
	 * a request of a page of another origin
	 */
	@WriteOperation
	@SuppressWarnings("deprecation")
	public WebEndpointResponse<Object> change(@Selector String section, @Selector String queue, String action,
			@org.springframework.lang.Nullable @Nullable String taskId,
			@org.springframework.lang.Nullable @Nullable String failedFrom,
			@org.springframework.lang.Nullable @Nullable String failedTo,
			@org.springframework.lang.Nullable @Nullable String failedBefore) {
		if (!QUEUES.equals(section)) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		String crossOrigin = DashboardPage.crossOrigin();
		if (crossOrigin != null) {
			logger.warn("Refused a write to queue '{}': {}", WardenNames.shown(queue), crossOrigin);
			return new WebEndpointResponse<>(new WardenAdmin.Problem("Refused: " + crossOrigin
					+ ". Writes come from this application's pages or from scripts"), 403);
		}
		try {
			WardenAdmin.WriteResult result = switch (action) {
				case "redrive" -> admin.redrive(queue, taskId, failedFrom, failedTo);
				case "purge" -> admin.purge(queue, taskId, failedBefore);
				case "cancel" -> {
					if (taskId == null) {
						throw new IllegalArgumentException("cancel needs a taskId");
					}
					yield admin.cancel(queue, taskId);
				}
				default -> throw new IllegalArgumentException(
						"Unknown action '" + action + "': use redrive, purge or cancel");
			};
			return new WebEndpointResponse<>(result);
		}
		catch (WardenAdmin.WriteOperationsDisabledException ex) {
			return new WebEndpointResponse<>(new WardenAdmin.Problem(ex.getMessage()), 403);
		}
		catch (IllegalArgumentException ex) {
			return new WebEndpointResponse<>(new WardenAdmin.Problem(ex.getMessage()), WebEndpointResponse.STATUS_BAD_REQUEST);
		}
	}

}
