package dev.warden.lock.annotation;

import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.warden.autoconfigure.WardenAutoConfiguration;
import dev.warden.autoconfigure.WardenLockAutoConfiguration;
import dev.warden.lock.interceptor.LockOperationSourceAdvisor;
import dev.warden.test.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.BeanFactoryTransactionAttributeSourceAdvisor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock must surround the transaction: released only after the commit, or a second instance
 * reads the row before the first one's update is visible and one update is lost.
 */
class TransactionOrderingTests {

	private static final String DATABASE = "jdbc:h2:mem:warden-tx;DB_CLOSE_DELAY=-1";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
				DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
				JdbcTemplateAutoConfiguration.class, TransactionAutoConfiguration.class,
				WardenAutoConfiguration.class, WardenLockAutoConfiguration.class))
		.withUserConfiguration(StockConfiguration.class)
		.withPropertyValues("spring.data.redis.host=" + redis.node().host(),
				"spring.data.redis.port=" + redis.node().port(), "spring.datasource.url=" + DATABASE,
				"spring.datasource.username=sa", "spring.datasource.hikari.maximum-pool-size=10");

	private Connection keepAlive;

	@BeforeEach
	void createTable() throws Exception {
		keepAlive = DriverManager.getConnection(DATABASE, "sa", "");
		keepAlive.createStatement().execute("create table if not exists stock (sku varchar(20) primary key, quantity int)");
		keepAlive.createStatement().execute("delete from stock");
		keepAlive.createStatement().execute("insert into stock values ('apple', 0)");
	}

	@AfterEach
	void dropTable() throws Exception {
		keepAlive.createStatement().execute("drop table stock");
		keepAlive.close();
	}

	@Test
	void lockAdviceRunsOutsideTheTransactionAdvice() {
		runner.run(context -> {
			Advisor[] advisors = ((Advised) context.getBean(StockService.class)).getAdvisors();
			int lock = indexOf(advisors, LockOperationSourceAdvisor.class);
			int transaction = indexOf(advisors, BeanFactoryTransactionAttributeSourceAdvisor.class);
			assertThat(lock).isNotNegative();
			assertThat(transaction).isGreaterThan(lock);
		});
	}

	@Test
	void concurrentReadModifyWriteFromTwoInstancesLosesNoUpdate() {
		runner.run(first -> runner.run(second -> {
			ExecutorService threads = Executors.newFixedThreadPool(16);
			try {
				List<Future<?>> calls = new ArrayList<>();
				for (ApplicationContext instance : List.of(first, second)) {
					StockService stock = instance.getBean(StockService.class);
					for (int t = 0; t < 8; t++) {
						calls.add(threads.submit(() -> {
							for (int i = 0; i < 25; i++) {
								stock.increment("apple");
							}
							return null;
						}));
					}
				}
				for (Future<?> call : calls) {
					call.get(2, TimeUnit.MINUTES);
				}
			}
			finally {
				threads.shutdownNow();
			}
			assertThat(first.getBean(JdbcTemplate.class)
				.queryForObject("select quantity from stock where sku = 'apple'", Integer.class)).isEqualTo(400);
		}));
	}

	private static int indexOf(Advisor[] advisors, Class<?> type) {
		for (int i = 0; i < advisors.length; i++) {
			if (type.isInstance(advisors[i])) {
				return i;
			}
		}
		return -1;
	}

	@Configuration(proxyBeanMethods = false)
	static class StockConfiguration {

		@Bean
		StockService stockService(JdbcTemplate jdbc) {
			return new StockService(jdbc);
		}

	}

	static class StockService {

		private final JdbcTemplate jdbc;

		StockService(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@DistributedLock(name = "stock", key = "#sku", waitTime = 60_000)
		@Transactional
		public void increment(String sku) {
			Integer quantity = jdbc.queryForObject("select quantity from stock where sku = ?", Integer.class, sku);
			jdbc.update("update stock set quantity = ? where sku = ?", quantity + 1, sku);
		}

	}

}
