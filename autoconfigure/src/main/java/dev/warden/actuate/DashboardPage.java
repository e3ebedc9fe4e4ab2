package dev.warden.actuate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import dev.warden.WardenNames;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.springframework.core.io.ClassPathResource;
import org.springframework.http.server.ServletServerHttpRequest;
import org.springframework.util.ClassUtils;
import org.springframework.util.StreamUtils;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.util.HtmlUtils;
import org.springframework.web.util.WebUtils;

/**
 * The dashboard's page, read once from the jar, and what the {@code warden} endpoint knows of the
 * servlet request it answers: Spring Security's CSRF token for the page, and whether a write comes
 * from a page of another origin. Without a servlet request (WebFlux, JMX) there is neither.
 */
final class DashboardPage {

	/** The page in the jar. */
	static final String RESOURCE = "dev/warden/actuate/dashboard.html";

	/** Where the page receives the CSRF token, when Spring Security gives one. */
	private static final String CSRF_PLACEHOLDER = "<!-- csrf -->";

	private static final boolean SERVLET = ClassUtils.isPresent("jakarta.servlet.http.HttpServletRequest",
			DashboardPage.class.getClassLoader())
			&& ClassUtils.isPresent("org.springframework.web.context.request.RequestContextHolder",
					DashboardPage.class.getClassLoader());

	private static final boolean SPRING_SECURITY = SERVLET && ClassUtils.isPresent(
			"org.springframework.security.web.csrf.CsrfToken", DashboardPage.class.getClassLoader());

	private final String page;

	DashboardPage() {
		try {
			this.page = StreamUtils.copyToString(new ClassPathResource(RESOURCE).getInputStream(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read the dashboard page from the jar", ex);
		}
	}

	/**
	 * The page, with Spring Security's CSRF token for its writes when the request carries one; on a
	 * servlet request, the response forbids other origins to frame the page (so that a page of
	 * another origin cannot have the operator click its buttons) and to be cached.
	 */
	String render() {
		if (SERVLET) {
			Servlet.protect();
		}
		String csrf = SPRING_SECURITY ? Security.csrfMetaTags() : "";
		return page.replace(CSRF_PLACEHOLDER, csrf);
	}

	/**
	 * Why the request under way cannot be a write an operator meant, or {@code null} when it may be:
	 * the browser marked it {@code cross-site} or {@code same-site} ({@code Sec-Fetch-Site}), or it
	 * names another origin ({@code Origin}). A script sends neither header; a browser always sends
	 * them with a write.
	 */
	static @Nullable String crossOrigin() {
		return SERVLET ? Servlet.crossOrigin() : null;
	}

	/** Reads the servlet request; loaded only when the servlet API is there. */
	private static final class Servlet {

		static @Nullable HttpServletRequest request() {
			RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
			return (attributes instanceof ServletRequestAttributes servlet) ? servlet.getRequest() : null;
		}

		/** No framing by another origin, no caching (the page carries a CSRF token). */
		static void protect() {
			RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
			HttpServletResponse response = (attributes instanceof ServletRequestAttributes servlet)
					? servlet.getResponse() : null;
			if (response != null) {
				response.setHeader("X-Frame-Options", "DENY");
				response.setHeader("Content-Security-Policy", "frame-ancestors 'none'");
				response.setHeader("Cache-Control", "no-store");
				response.setHeader("X-Content-Type-Options", "nosniff");
			}
		}

		static @Nullable String crossOrigin() {
			HttpServletRequest request = request();
			if (request == null) {
				return null;
			}
			String site = request.getHeader("Sec-Fetch-Site");
			if (site != null && !site.equalsIgnoreCase("same-origin") && !site.equalsIgnoreCase("none")) {
				return "the browser marked the request " + WardenNames.shown(site);
			}
			String origin = request.getHeader("Origin");
			if (origin != null && !WebUtils.isSameOrigin(new ServletServerHttpRequest(request))) {
				return "a request from another origin (" + WardenNames.shown(origin) + ")";
			}
			return null;
		}

	}

	/** Reads Spring Security's CSRF token; loaded only when Spring Security is there. */
	private static final class Security {

		static String csrfMetaTags() {
			HttpServletRequest request = Servlet.request();
			if (request == null || !(request.getAttribute(org.springframework.security.web.csrf.CsrfToken.class.getName())
					instanceof org.springframework.security.web.csrf.CsrfToken token)) {
				return "";
			}
			return "<meta name=\"_csrf_header\" content=\"" + HtmlUtils.htmlEscape(token.getHeaderName()) + "\">\n"
					+ "<meta name=\"_csrf\" content=\"" + HtmlUtils.htmlEscape(token.getToken()) + "\">";
		}

	}

}
