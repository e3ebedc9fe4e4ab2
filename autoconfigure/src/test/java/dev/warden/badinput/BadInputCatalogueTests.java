package dev.warden.badinput;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The catalogue and its tests match one to one: every row is checked by exactly one test, and no
 * test checks a row the catalogue does not have.
 */
class BadInputCatalogueTests {

	private static final Path TESTS = Path.of("src", "test", "java", "dev", "warden", "badinput");

	private static final Pattern CHECK = Pattern.compile("\\(\"([A-Z]\\d{2})\"");

	@Test
	void everyRowHasExactlyOneTestAndEveryTestARow() throws IOException {
		List<String> checked = new ArrayList<>();
		try (Stream<Path> files = Files.list(TESTS)) {
			for (Path file : files.filter(f -> f.toString().endsWith("Tests.java")).toList()) {
				Matcher check = CHECK.matcher(Files.readString(file));
				while (check.find()) {
					checked.add(check.group(1));
				}
			}
		}

		assertThat(BadInputCatalogue.rows()).hasSizeGreaterThanOrEqualTo(30);
		assertThat(checked).as("rows checked by the tests").doesNotHaveDuplicates()
			.containsExactlyInAnyOrderElementsOf(BadInputCatalogue.rows().keySet());
	}

}
