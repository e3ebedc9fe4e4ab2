package dev.warden.benchmark;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Every measured value of one run, by metric and library; printed as a Markdown table of medians
 * with their spread, and the Warden/Redisson ratio.
 */
final class Report {

	/** A metric and whether a higher value is better. */
	record Metric(String name, boolean higherIsBetter) {
	}

	private final Map<Metric, Map<String, List<Double>>> values = new LinkedHashMap<>();

	void add(Metric metric, String library, double value) {
		values.computeIfAbsent(metric, m -> new LinkedHashMap<>()).computeIfAbsent(library, l -> new ArrayList<>())
			.add(value);
	}

	/** The median of a metric for a library, or NaN. */
	double median(String metric, String library) {
		for (Map.Entry<Metric, Map<String, List<Double>>> entry : values.entrySet()) {
			if (entry.getKey().name().equals(metric)) {
				List<Double> list = entry.getValue().get(library);
				return (list == null) ? Double.NaN : median(list);
			}
		}
		return Double.NaN;
	}

	/**
	 * Every median as tab-separated lines of metric, library ({@code -} for a figure of neither) and
	 * value, the form {@link #fromMedians} reads back (for the cost model).
	 */
	String medians() {
		StringBuilder out = new StringBuilder("# metric\tlibrary\tmedian\n");
		for (Map.Entry<Metric, Map<String, List<Double>>> entry : values.entrySet()) {
			for (Map.Entry<String, List<Double>> library : entry.getValue().entrySet()) {
				out.append(entry.getKey().name()).append('\t').append(library.getKey().isEmpty() ? "-" : library.getKey())
					.append('\t').append(median(library.getValue())).append('\n');
			}
		}
		return out.toString();
	}

	/** A report of the medians that {@link #medians()} wrote. */
	static Report fromMedians(String text) {
		Report report = new Report();
		for (String line : text.split("\r?\n")) {
			if (line.isBlank() || line.startsWith("#")) {
				continue;
			}
			String[] fields = line.split("\t");
			report.add(new Metric(fields[0], false), fields[1].equals("-") ? "" : fields[1], Double.parseDouble(fields[2]));
		}
		return report;
	}

	int size() {
		return values.size();
	}

	/**
	 * A metric measured for both libraries.
	 *
	 * @param metric the metric's name
	 * @param betterBy how many times better Warden is (below 1: worse), whichever way the metric counts
	 */
	record Comparison(String metric, double betterBy) {
	}

	/** Every metric both libraries have a non-zero median for. */
	List<Comparison> comparisons() {
		List<Comparison> comparisons = new ArrayList<>();
		for (Map.Entry<Metric, Map<String, List<Double>>> entry : values.entrySet()) {
			List<Double> warden = entry.getValue().get("Warden");
			List<Double> redisson = entry.getValue().get("Redisson");
			if (warden == null || redisson == null || median(warden) <= 0 || median(redisson) <= 0) {
				continue;
			}
			double ratio = median(warden) / median(redisson);
			comparisons.add(new Comparison(entry.getKey().name(), entry.getKey().higherIsBetter() ? ratio : 1 / ratio));
		}
		return comparisons;
	}

	String markdown() {
		return markdown("Warden", "Redisson");
	}

	/** The table of three columns, and the first's ratio to each of the others. */
	String markdown(String first, String second, String third) {
		StringBuilder out = new StringBuilder();
		out.append("| scenario | ").append(first).append(" | ").append(second).append(" | ").append(third).append(" | ")
			.append(first).append(" / ").append(second).append(" | ").append(first).append(" / ").append(third)
			.append(" |\n|---|---|---|---|---|---|\n");
		for (Map.Entry<Metric, Map<String, List<Double>>> entry : values.entrySet()) {
			List<Double> mine = entry.getValue().getOrDefault(first, List.of());
			out.append("| ").append(entry.getKey().name()).append(" | ").append(cell(mine));
			for (String other : List.of(second, third)) {
				out.append(" | ").append(cell(entry.getValue().getOrDefault(other, List.of())));
			}
			for (String other : List.of(second, third)) {
				List<Double> theirs = entry.getValue().getOrDefault(other, List.of());
				out.append(" | ");
				if (!mine.isEmpty() && !theirs.isEmpty() && median(theirs) != 0) {
					out.append(String.format(Locale.ROOT, "%.2f×", median(mine) / median(theirs)));
					out.append(entry.getKey().higherIsBetter() ? " (higher is better)" : " (lower is better)");
				}
			}
			out.append(" |\n");
		}
		return out.toString();
	}

	/** The table of two columns, and the first's ratio to the second's. */
	String markdown(String first, String second) {
		StringBuilder out = new StringBuilder();
		out.append("| scenario | ").append(first).append(" | ").append(second).append(" | ").append(first).append(" / ")
			.append(second).append(" |\n|---|---|---|---|\n");
		for (Map.Entry<Metric, Map<String, List<Double>>> entry : values.entrySet()) {
			List<Double> warden = entry.getValue().getOrDefault(first, List.of());
			List<Double> redisson = entry.getValue().getOrDefault(second, List.of());
			List<Double> shared = entry.getValue().getOrDefault("", List.of());
			out.append("| ").append(entry.getKey().name()).append(" | ");
			if (!shared.isEmpty()) {
				out.append(cell(shared)).append(" | | |\n");
				continue;
			}
			out.append(cell(warden)).append(" | ").append(cell(redisson)).append(" | ");
			if (!warden.isEmpty() && !redisson.isEmpty() && median(redisson) != 0) {
				out.append(String.format(Locale.ROOT, "%.2f×", median(warden) / median(redisson)));
				out.append(entry.getKey().higherIsBetter() ? " (higher is better)" : " (lower is better)");
			}
			out.append(" |\n");
		}
		return out.toString();
	}

	private static String cell(List<Double> values) {
		if (values.isEmpty()) {
			return "";
		}
		List<Double> sorted = values.stream().sorted().toList();
		if (sorted.size() == 1) {
			return format(sorted.get(0));
		}
		return format(median(values)) + " (" + format(sorted.get(0)) + "–" + format(sorted.get(sorted.size() - 1)) + ")";
	}

	private static double median(List<Double> values) {
		List<Double> sorted = values.stream().sorted().toList();
		int middle = sorted.size() / 2;
		return (sorted.size() % 2 == 1) ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
	}

	private static String format(double value) {
		if (Math.abs(value) >= 10_000) {
			return String.format(Locale.ROOT, "%.1f k", value / 1000);
		}
		if (Math.abs(value) >= 100) {
			return String.format(Locale.ROOT, "%.0f", value);
		}
		return String.format(Locale.ROOT, "%.2f", value);
	}

}
