package dev.warden.actuate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.io.ClassPathResource;
import org.springframework.http.HttpStatus;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.ServletServerHttpRequest;
import org.springframework.stereotype.Controller;
import org.springframework.util.ClassUtils;
import org.springframework.util.StreamUtils;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseBody;
import org.springframework.web.util.HtmlUtils;
import org.springframework.web.util.WebUtils;

/**
 * The dashboard: one page served from the jar at {@code warden.dashboard.path} ({@code /warden} by
 * default), and the JSON it reads under the same path. The page shows every queue with its counts
 * and lateness percentiles, a queue's pending tasks and dead letters with their errors, and the
 * locks held here; with {@code warden.actuator.write-operations=true} it re-drives dead letters.
 * It is a plain Spring MVC controller: put its path behind Spring Security like the Actuator's.
 * <p>
 * A write is accepted only as the page sends it, which a page of another origin cannot: with the
 * {@value #REQUEST_HEADER} header (a cross-origin form cannot send one, and a cross-origin script
 * only after a CORS preflight that nothing here answers), not marked {@code cross-site} or
 * {@code same-site} by the browser ({@code Sec-Fetch-Site}), from this origin when it names one
 * ({@code Origin}), and with no body or a JSON one, never a form's. With Spring Security's CSRF
 * protection on, the page also sends its token, which it finds in the page.
 */
@Controller
@RequestMapping("${warden.dashboard.path:/warden}")
public class WardenDashboardController {

	/** The header the page sends with its writes, and without which none is accepted. */
	public static final String REQUEST_HEADER = "X-Warden-Request";

	private static final Logger logger = LoggerFactory.getLogger(WardenDashboardController.class);

	/** Where the page receives the CSRF token, when Spring Security gives one. */
	private static final String CSRF_PLACEHOLDER = "<!-- csrf -->";

	private static final boolean SPRING_SECURITY = ClassUtils.isPresent(
			"org.springframework.security.web.csrf.CsrfToken", WardenDashboardController.class.getClassLoader());

	private final WardenAdmin admin;

	private final String page;

	/** @param admin what the page shows and does */
	public WardenDashboardController(WardenAdmin admin) {
		this.admin = admin;
		try {
			this.page = StreamUtils.copyToString(new ClassPathResource("dev/warden/actuate/dashboard.html").getInputStream(),
					StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read the dashboard page from the jar", ex);
		}
	}

	/**
	 * The page, with Spring Security's CSRF token for its writes when the request carries one.
	 * @param request the request, whose {@code CsrfToken} attribute Spring Security sets
	 * @return the page
	 */
	@GetMapping
	public ResponseEntity<String> page(HttpServletRequest request) {
		String csrf = SPRING_SECURITY ? SecurityToken.metaTags(request) : "";
		return ResponseEntity.ok()
			.contentType(new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8))
			.header("Cache-Control", "no-store")
			.body(page.replace(CSRF_PLACEHOLDER, csrf));
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
	 * One task of a queue with its whole payload: the pending task and the dead letter of that id.
	 * @param queue the queue's name
	 * @param taskId the task id
	 * @return the task, or 404 when the queue has no task of that id, or 400 for a bad name
	 */
	@GetMapping("/api/queues/{queue}/tasks/{taskId}")
	@ResponseBody
	public ResponseEntity<Object> task(@PathVariable("queue") String queue, @PathVariable("taskId") String taskId) {
		try {
			return admin.task(queue, taskId)
				.<ResponseEntity<Object>>map(ResponseEntity::ok)
				.orElseGet(() -> ResponseEntity.status(HttpStatus.NOT_FOUND)
					.body(new WardenAdmin.Problem("Queue '" + queue + "' has no pending task nor dead letter '"
							+ taskId + "'")));
		}
		catch (IllegalArgumentException ex) {
			return ResponseEntity.badRequest().body(new WardenAdmin.Problem(ex.getMessage()));
		}
	}

	/**
	 * Re-drives one dead letter, or all of the queue's, for a request sent as the page sends it.
	 * @param queue the queue's name
	 * @param taskId the dead letter, or none for all
	 * @param request the request, checked to come from the page
	 * @return what was done; 403 for a request that is not the page's (another origin, no
	 * {@value #REQUEST_HEADER} header) or while write operations are off; 415 for a body that is
	 * not JSON; 400 for a bad queue name
	 */
	@PostMapping("/api/queues/{queue}/redrive")
	@ResponseBody
	public ResponseEntity<Object> redrive(@PathVariable("queue") String queue,
			@RequestParam(name = "taskId", required = false) @Nullable String taskId, HttpServletRequest request) {
		String refusal = notFromThePage(request);
		if (refusal != null) {
			logger.warn("Refused a dashboard write to queue '{}': {}", queue, refusal);
			return ResponseEntity.status(HttpStatus.FORBIDDEN)
				.body(new WardenAdmin.Problem("Refused: " + refusal + ". The dashboard's writes are same-origin "
						+ "requests with the " + REQUEST_HEADER + " header"));
		}
		if (!jsonOrNoBody(request)) {
			return ResponseEntity.status(HttpStatus.UNSUPPORTED_MEDIA_TYPE)
				.body(new WardenAdmin.Problem("Refused: a body of type " + request.getContentType()
						+ "; the dashboard's writes send no body, or JSON"));
		}
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

	/** Why {@code request} is not one the page sent, or {@code null} when it may be. */
	private static @Nullable String notFromThePage(HttpServletRequest request) {
		String site = request.getHeader("Sec-Fetch-Site");
		if (site != null && !site.equalsIgnoreCase("same-origin") && !site.equalsIgnoreCase("none")) {
			return "the browser marked the request " + site;
		}
		String origin = request.getHeader("Origin");
		if (origin != null && !WebUtils.isSameOrigin(new ServletServerHttpRequest(request))) {
			return "a request from another origin (" + origin + ")";
		}
		if (request.getHeader(REQUEST_HEADER) == null) {
			return "a request without the " + REQUEST_HEADER + " header";
		}
		return null;
	}

	private static boolean jsonOrNoBody(HttpServletRequest request) {
		String type = request.getContentType();
		if (type == null) {
			return request.getContentLengthLong() <= 0 && request.getHeader("Transfer-Encoding") == null;
		}
		try {
			MediaType media = MediaType.parseMediaType(type);
			return MediaType.APPLICATION_JSON.isCompatibleWith(media) && !media.isWildcardSubtype();
		}
		catch (InvalidMediaTypeException ex) {
			return false;
		}
	}

	/** Reads Spring Security's CSRF token; loaded only when Spring Security is there. */
	private static final class SecurityToken {

		static String metaTags(HttpServletRequest request) {
			if (!(request.getAttribute(org.springframework.security.web.csrf.CsrfToken.class.getName())
					instanceof org.springframework.security.web.csrf.CsrfToken token)) {
				return "";
			}
			return "<meta name=\"_csrf_header\" content=\"" + HtmlUtils.htmlEscape(token.getHeaderName()) + "\">\n"
					+ "<meta name=\"_csrf\" content=\"" + HtmlUtils.htmlEscape(token.getToken()) + "\">";
		}

	}

}
