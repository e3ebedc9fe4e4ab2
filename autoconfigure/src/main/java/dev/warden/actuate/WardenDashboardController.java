package dev.warden.actuate;

import org.jspecify.annotations.Nullable;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseBody;

/**
 * The dashboard: one page served from the jar at {@code warden.dashboard.path} ({@code /warden} by
 * default), and the JSON it reads under the same path. The page shows every queue with its counts
 * and lateness percentiles, a queue's pending tasks and dead letters with their errors, and the
 * locks held here; with {@code warden.actuator.write-operations=true} it re-drives dead letters.
 * It is a plain Spring MVC controller: put its path behind Spring Security like the Actuator's.
 */
@Controller
@RequestMapping("${warden.dashboard.path:/warden}")
public class WardenDashboardController {

	private final WardenAdmin admin;

	private final Resource page = new ClassPathResource("dev/warden/actuate/dashboard.html");

	/** @param admin what the page shows and does */
	public WardenDashboardController(WardenAdmin admin) {
		this.admin = admin;
	}

	/** The page. */
	@GetMapping
	public ResponseEntity<Resource> page() {
		return ResponseEntity.ok().contentType(MediaType.TEXT_HTML).header("Cache-Control", "no-store").body(page);
	}

	/** The client, the locks held here and every queue. */
	@GetMapping("/api/overview")
	@ResponseBody
	public WardenAdmin.Overview overview() {
		return admin.overview();
	}

	/**
	 * One page of a queue.
	 * @param queue the queue's name
	 * @param offset how many of each list to skip
	 * @param limit how many of each at most
	 * @return the page, or 400 for a bad page
	 */
	@GetMapping("/api/queues/{queue}")
	@ResponseBody
	public ResponseEntity<Object> queue(@PathVariable("queue") String queue,
			@RequestParam(name = "offset", defaultValue = "0") int offset,
			@RequestParam(name = "limit", defaultValue = "" + WardenAdmin.DEFAULT_PAGE) int limit) {
		try {
			return ResponseEntity.ok(admin.queue(queue, offset, limit));
		}
		catch (IllegalArgumentException ex) {
			return ResponseEntity.badRequest().body(new WardenAdmin.Problem(ex.getMessage()));
		}
	}

	/**
	 * Re-drives one dead letter, or all of the queue's.
	 * @param queue the queue's name
	 * @param taskId the dead letter, or none for all
	 * @return what was done, or 403 while write operations are off, or 400 for a bad queue name
	 */
	@PostMapping("/api/queues/{queue}/redrive")
	@ResponseBody
	public ResponseEntity<Object> redrive(@PathVariable("queue") String queue,
			@RequestParam(name = "taskId", required = false) @Nullable String taskId) {
		try {
			return ResponseEntity.ok(admin.redrive(queue, taskId, null, null));
		}
		catch (WardenAdmin.WriteOperationsDisabledException ex) {
			return ResponseEntity.status(HttpStatus.FORBIDDEN).body(new WardenAdmin.Problem(ex.getMessage()));
		}
		catch (IllegalArgumentException ex) {
			return ResponseEntity.badRequest().body(new WardenAdmin.Problem(ex.getMessage()));
		}
	}

}
