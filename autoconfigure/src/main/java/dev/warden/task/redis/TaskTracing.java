package dev.warden.task.redis;

import java.util.LinkedHashMap;
import java.util.Map;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;

/**
 * The observations of delayed tasks, and the trace context that travels with a task: scheduling is
 * a producer observation ({@code warden.task.schedule}) whose handlers (a tracer's) write their
 * propagation headers into a map, stored with the task in Redis; a delivery is a consumer
 * observation ({@code warden.task.run}) that reads them back, on whichever instance runs it, so its
 * span continues the trace of the code that scheduled it. With no observation registry nothing is
 * created, stored or read.
 */
final class TaskTracing {

	/** Separates a header's name from its value; neither holds control characters. */
	private static final char NAME_END = '\u001f';

	/** Separates headers. */
	private static final char HEADER_END = '\u001e';

	private final ObservationRegistry registry;

	TaskTracing(ObservationRegistry registry) {
		this.registry = registry;
	}

	/**
	 * A schedule under way: its observation, and the propagation headers its handlers wrote.
	 *
	 * @param observation the started observation
	 * @param headers the headers, to store with the task
	 */
	record Scheduling(Observation observation, Map<String, String> headers) {

		/** What a schedule carries without a registry: nothing. */
		static final Scheduling NONE = new Scheduling(Observation.NOOP, Map.of());

		/** The headers as stored with the task. */
		String traceContext() {
			return encode(headers);
		}

	}

	/**
	 * Starts the observation of a schedule, in the scheduling thread's current observation.
	 * @param queue the queue
	 * @param taskId the task
	 * @return the started observation and its headers ({@link Scheduling#NONE} without a registry)
	 */
	Scheduling startSchedule(String queue, String taskId) {
		if (registry.isNoop()) {
			return Scheduling.NONE;
		}
		Map<String, String> carrier = new LinkedHashMap<>();
		SenderContext<Map<String, String>> context = new SenderContext<>((headers, name, value) -> {
			if (headers != null) {
				headers.put(name, value);
			}
		});
		context.setCarrier(carrier);
		context.setRemoteServiceName("redis");
		Observation observation = Observation.createNotStarted("warden.task.schedule", () -> context, registry)
			.contextualName("schedule " + queue)
			.lowCardinalityKeyValue("queue", queue)
			.highCardinalityKeyValue("task.id", taskId)
			.start();
		return new Scheduling(observation, carrier);
	}

	/**
	 * Starts the observation of a delivery, continuing the trace context stored with the task.
	 * @param queue the queue
	 * @param task the claimed task
	 * @return the started observation (a no-op one without a registry)
	 */
	Observation startRun(String queue, ClaimCall.ClaimedTask task) {
		if (registry.isNoop()) {
			return Observation.NOOP;
		}
		ReceiverContext<Map<String, String>> context = new ReceiverContext<>((headers, name) -> headers.get(name));
		context.setCarrier(decode(task.traceContext()));
		context.setRemoteServiceName("redis");
		return Observation.createNotStarted("warden.task.run", () -> context, registry)
			.contextualName("run " + queue)
			.lowCardinalityKeyValue("queue", queue)
			.highCardinalityKeyValue("task.id", task.id())
			.highCardinalityKeyValue("attempt", Integer.toString(task.attempt()))
			.start();
	}

	/** The headers as stored with a task: '' for none. */
	static String encode(Map<String, String> headers) {
		if (headers.isEmpty()) {
			return "";
		}
		StringBuilder text = new StringBuilder();
		headers.forEach((name, value) -> {
			if (isPlain(name) && isPlain(value)) {
				text.append(name).append(NAME_END).append(value).append(HEADER_END);
			}
		});
		return text.toString();
	}

	/** The headers stored with a task. */
	static Map<String, String> decode(String text) {
		Map<String, String> headers = new LinkedHashMap<>();
		int start = 0;
		while (start < text.length()) {
			int nameEnd = text.indexOf(NAME_END, start);
			int headerEnd = text.indexOf(HEADER_END, start);
			if (nameEnd < 0 || headerEnd < nameEnd) {
				break;
			}
			headers.put(text.substring(start, nameEnd), text.substring(nameEnd + 1, headerEnd));
			start = headerEnd + 1;
		}
		return headers;
	}

	private static boolean isPlain(String text) {
		return text.indexOf(NAME_END) < 0 && text.indexOf(HEADER_END) < 0;
	}

}
