package dev.warden.autoconfigure;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

import javax.sql.DataSource;

import dev.warden.Warden;
import dev.warden.WardenConfigurationException;
import dev.warden.task.transaction.TaskOutbox;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Task writes that follow the application's transactions: with a {@link DataSource}, a schedule,
 * cancel or reschedule made inside a Spring-managed transaction goes to an outbox table in that
 * transaction and reaches Redis when it commits ({@link TaskOutbox}).
 */
// After the DataSource's auto-configuration, named for both Boot lines.
@AutoConfiguration(afterName = { "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
		"org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration" },
		beforeName = "dev.warden.autoconfigure.WardenAutoConfiguration")
@ConditionalOnClass({ TransactionSynchronizationManager.class, DataSourceUtils.class })
@ConditionalOnBooleanProperty(name = "warden.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "warden.delayed-task.transactions.enabled", matchIfMissing = true)
@EnableConfigurationProperties(WardenProperties.class)
public final class WardenTransactionAutoConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	@ConditionalOnSingleCandidate(DataSource.class)
	TaskOutbox wardenTaskOutbox(DataSource dataSource, WardenProperties properties, ObjectProvider<Warden> warden) {
		WardenProperties.Transactions transactions = properties.getDelayedTask().getTransactions();
		TaskOutbox outbox;
		try {
			outbox = new TaskOutbox(dataSource, transactions.getTable(), warden::getObject,
					properties.getDelayedTask().immediateQueues(), transactions.getRelayAfter(),
					transactions.getSweepInterval());
		}
		catch (IllegalArgumentException ex) {
			throw new WardenConfigurationException(ex.getMessage(),
					"Set warden.delayed-task.transactions.table to a table name such as warden_task_outbox");
		}
		try {
			outbox.checkTable(connection -> switch (transactions.getInitializeSchema()) {
				case ALWAYS -> true;
				case NEVER -> false;
				case EMBEDDED -> embedded(connection);
			});
		}
		catch (IllegalStateException ex) {
			outbox.close();
			throw new WardenConfigurationException(ex.getMessage(), "Create the table, or set "
					+ "warden.delayed-task.transactions.initialize-schema=always, or set "
					+ "warden.delayed-task.transactions.enabled=false");
		}
		return outbox;
	}

	/** Whether the connection's database lives in this process (or its files): H2, HSQLDB, Derby. */
	private static boolean embedded(Connection connection) {
		try {
			String product = connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
			String url = String.valueOf(connection.getMetaData().getURL()).toLowerCase(Locale.ROOT);
			return (product.contains("h2") && (url.startsWith("jdbc:h2:mem:") || url.startsWith("jdbc:h2:file:")
					|| url.startsWith("jdbc:h2:~") || url.startsWith("jdbc:h2:./")))
					|| product.contains("hsql") || product.contains("derby");
		}
		catch (SQLException ex) {
			return false;
		}
	}

}
