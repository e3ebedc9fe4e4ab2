package dev.warden.samples.invoices;

import java.math.BigDecimal;
import java.time.Instant;

import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Invoice reminders on Spring Boot 3.5. Started with {@code --invoices.issue=<number>}, it issues
 * that invoice once it is up: the desk takes the invoice's lock and schedules a reminder (soon) and
 * an escalation (in a week).
 */
@SpringBootApplication
public class InvoicesApplication {

	public static void main(String[] args) {
		SpringApplication.run(InvoicesApplication.class, args);
	}

	@Bean
	ApplicationRunner issueOnStartup(InvoiceDesk desk, Environment environment) {
		return arguments -> {
			String number = environment.getProperty("invoices.issue");
			if (number != null) {
				desk.issue(new Invoice(number, new Money(new BigDecimal("12.50"), "EUR"), Instant.now()));
			}
		};
	}

}
