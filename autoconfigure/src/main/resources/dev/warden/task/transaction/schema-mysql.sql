-- Warden's outbox: the task writes of committed transactions that Redis has not yet received.
-- Rows live for milliseconds unless Redis is unreachable, so the sweep scans the table and it
-- keeps no index beyond its key: each row costs one index entry to insert and delete.
-- created_at and claimed_until hold the database's clock in UTC, whatever the session's time zone.
CREATE TABLE IF NOT EXISTS warden_task_outbox (
  tx_id         VARCHAR(36)  NOT NULL,
  seq           INT          NOT NULL,
  queue_name    TEXT         NOT NULL,
  task_id       TEXT         NOT NULL,
  kind          VARCHAR(16)  NOT NULL,
  payload       LONGTEXT,
  delay_millis  BIGINT       NOT NULL,
  due_at_millis BIGINT       NOT NULL,
  replace_task  BOOLEAN      NOT NULL,
  created_at    DATETIME(3)  NOT NULL,
  claimed_until DATETIME(3)  NULL,
  PRIMARY KEY (tx_id, seq)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
