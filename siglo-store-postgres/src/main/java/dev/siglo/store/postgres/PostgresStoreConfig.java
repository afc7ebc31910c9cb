package dev.siglo.store.postgres;

import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.store.JsonOutcomeCodec;
import dev.siglo.consumer.store.OutcomeCodec;
import dev.siglo.consumer.support.Durations;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Settings of a {@link PostgresIdempotencyStore}, immutable once built; every setter validates.
 *
 * <p>Defaults: table {@value #DEFAULT_TABLE}, not created automatically ({@link
 * Builder#createTable(boolean)}), the database clock for expiry, expired rows purged only after a
 * grace of one hour, the JSON outcome codec.
 */
public final class PostgresStoreConfig {
  /** The default table name. */
  public static final String DEFAULT_TABLE = "siglo_idempotency";

  /** Default grace past expiry before {@code purgeExpired} deletes a row. */
  public static final Duration DEFAULT_PURGE_GRACE = Duration.ofHours(1);

  /** Default number of partitions the partitioned layout keeps created ahead of now. */
  public static final int DEFAULT_PARTITIONS_AHEAD = 2;

  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,51}");

  private final DataSource dataSource;
  private final String schema;
  private final String table;
  private final boolean createTable;
  private final Clock clock;
  private final OutcomeCodec codec;
  private final Duration purgeGrace;
  private final boolean closeDataSourceOnClose;
  private final Duration partitionWidth;
  private final int partitionsAhead;
  private final Duration idleInTransactionTimeout;

  private PostgresStoreConfig(Builder b) {
    this.dataSource = b.dataSource;
    this.schema = b.schema;
    this.table = b.table;
    this.createTable = b.createTable;
    this.clock = b.clock;
    this.codec = b.codec;
    this.purgeGrace = b.purgeGrace;
    this.closeDataSourceOnClose = b.closeDataSourceOnClose;
    this.partitionWidth = b.partitionWidth;
    this.partitionsAhead = b.partitionsAhead;
    this.idleInTransactionTimeout = b.idleInTransactionTimeout;
  }

  /**
   * @return how long a {@link TransactionalStep}'s transaction may sit idle (its process frozen,
   *     cut off or stuck between two statements) before PostgreSQL ends the session, releasing its
   *     locks and rolling it back; {@code null} (the default) for the step's lease (see {@link
   *     Builder#idleInTransactionTimeout})
   */
  public Duration idleInTransactionTimeout() {
    return idleInTransactionTimeout;
  }

  /**
   * @return the span of expiry times one partition holds, or {@code null} for the single table (see
   *     {@link Builder#partitioned})
   */
  public Duration partitionWidth() {
    return partitionWidth;
  }

  /**
   * @return how many partitions are kept created ahead of now (partitioned layout)
   */
  public int partitionsAhead() {
    return partitionsAhead;
  }

  /**
   * @return the quoted name of the partitioned layout's index on the key
   */
  String quotedKeyIndex() {
    return quote(table + "_key_idx");
  }

  /**
   * @param start the first expiry millis the partition holds
   * @return the quoted, possibly schema-qualified name of that partition: the table's name, {@code
   *     _p} and the start in seconds, base 36 (at most 63 characters)
   */
  String qualifiedPartition(long start) {
    String name = table + "_p" + Long.toString(Math.floorDiv(start, 1000), 36).replace('-', 'n');
    return schema == null ? quote(name) : quote(schema) + "." + quote(name);
  }

  /**
   * @param dataSource where connections come from; a pooled one (HikariCP) in production
   * @return a builder with the defaults
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(dataSource);
  }

  /**
   * @return the data source
   */
  public DataSource dataSource() {
    return dataSource;
  }

  /**
   * @return the schema, or {@code null} for the search path
   */
  public String schema() {
    return schema;
  }

  /**
   * @return the table name
   */
  public String table() {
    return table;
  }

  /**
   * @return the quoted, possibly schema-qualified table for SQL text
   */
  String qualifiedTable() {
    return schema == null ? quote(table) : quote(schema) + "." + quote(table);
  }

  /**
   * @return the quoted expiry index name
   */
  String quotedIndex() {
    return quote(table + "_expiry_idx");
  }

  private static String quote(String identifier) {
    return '"' + identifier + '"';
  }

  /**
   * @return whether the store creates its table when missing
   */
  public boolean createTable() {
    return createTable;
  }

  /**
   * @return the clock deciding expiry, or {@code null} for the database clock
   */
  public Clock clock() {
    return clock;
  }

  /**
   * @return the outcome codec
   */
  public OutcomeCodec codec() {
    return codec;
  }

  /**
   * @return how long past expiry a row is kept before {@code purgeExpired} deletes it
   */
  public Duration purgeGrace() {
    return purgeGrace;
  }

  /**
   * @return whether closing the store closes the data source (when it is {@link AutoCloseable})
   */
  public boolean closeDataSourceOnClose() {
    return closeDataSourceOnClose;
  }

  @Override
  public String toString() {
    return "PostgresStoreConfig[table="
        + qualifiedTable()
        + ", createTable="
        + createTable
        + (partitionWidth == null ? "" : ", partitioned by expiry every " + partitionWidth)
        + ", clock="
        + (clock == null ? "database" : clock)
        + "]";
  }

  /** Builds a {@link PostgresStoreConfig}. Not thread-safe. */
  public static final class Builder {
    private final DataSource dataSource;
    private String schema;
    private String table = DEFAULT_TABLE;
    private boolean createTable;
    private Clock clock;
    private OutcomeCodec codec = JsonOutcomeCodec.of();
    private Duration purgeGrace = DEFAULT_PURGE_GRACE;
    private boolean closeDataSourceOnClose;
    private Duration partitionWidth;
    private int partitionsAhead = DEFAULT_PARTITIONS_AHEAD;
    private Duration idleInTransactionTimeout;

    private Builder(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * @param table the table name: lowercase letters, digits and {@code _}, starting with a letter
     *     or {@code _}, at most 52 characters (index and partition names add a suffix)
     * @return this builder
     * @throws SigloConfigurationException when the name is not such an identifier
     */
    public Builder table(String table) {
      this.table = identifier(table, "table");
      return this;
    }

    /**
     * @param schema the schema (same rules as the table), or {@code null} for the search path
     * @return this builder
     */
    public Builder schema(String schema) {
      this.schema = schema == null ? null : identifier(schema, "schema");
      return this;
    }

    /**
     * @param createTable create the table and index when missing (otherwise apply {@code
     *     schema.sql} with your migration tool)
     * @return this builder
     */
    public Builder createTable(boolean createTable) {
      this.createTable = createTable;
      return this;
    }

    /**
     * @param clock the clock deciding expiry; {@code null} (the default) uses the database clock
     * @return this builder
     */
    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /**
     * @param codec the outcome codec
     * @return this builder
     */
    public Builder codec(OutcomeCodec codec) {
      this.codec = Objects.requireNonNull(codec, "codec");
      return this;
    }

    /**
     * @param purgeGrace how long past expiry a row is kept before a purge deletes it; positive
     * @return this builder
     */
    public Builder purgeGrace(Duration purgeGrace) {
      this.purgeGrace = Durations.requirePositive(purgeGrace, "purgeGrace");
      return this;
    }

    /**
     * @param close close the data source (a pool built just for the store) when the store closes
     * @return this builder
     */
    public Builder closeDataSourceOnClose(boolean close) {
      this.closeDataSourceOnClose = close;
      return this;
    }

    /**
     * Keeps the records in a table partitioned by expiry (off by default: one table, purged with
     * {@code DELETE}). Each partition holds the rows whose lease or retention ends within one
     * {@code width}; the store creates partitions {@link #partitionsAhead ahead} of time (and any
     * other a write needs), and {@link PostgresIdempotencyStore#purgeExpired()} drops a partition
     * once its every row expired more than the purge grace ago: no {@code DELETE}, no bloat, no
     * vacuum of dead rows. The contract is the same; each claim costs a few more statements (an
     * advisory lock serializes the claims of one key, as the table can have no primary key). The
     * table ({@code schema-partitioned.sql}) differs from the single one: migrate by copying the
     * live rows into a new table (README). A table's width must not change once it has partitions.
     * A read by key probes every partition, so keep them few: a width of a quarter to an eighth of
     * the retention, and longer than the lease.
     *
     * @param width the span of one partition, whole seconds, at least one
     * @return this builder
     * @throws SigloConfigurationException when the width is not whole seconds or shorter than one
     */
    public Builder partitioned(Duration width) {
      Durations.requirePositive(width, "partitionWidth");
      if (width.toMillis() % 1000 != 0) {
        throw new SigloConfigurationException("partitionWidth must be whole seconds, was " + width);
      }
      this.partitionWidth = width;
      return this;
    }

    /**
     * @param partitions how many partitions the partitioned layout keeps created ahead of now, at
     *     least 1 (default {@value #DEFAULT_PARTITIONS_AHEAD})
     * @return this builder
     */
    public Builder partitionsAhead(int partitions) {
      if (partitions < 1) {
        throw new SigloConfigurationException(
            "partitionsAhead must be at least 1, was " + partitions);
      }
      this.partitionsAhead = partitions;
      return this;
    }

    /**
     * Bounds how long a {@link TransactionalStep}'s open transaction may wait on its client between
     * two statements ({@code idle_in_transaction_session_timeout}, set for that transaction only).
     * A process frozen by a GC pause, a VM migration or {@code SIGSTOP} while its transaction holds
     * a key's row (or advisory) lock would otherwise block that key for as long as it stays frozen;
     * once the timeout ends its session, its writes and record roll back and another process claims
     * the key (the frozen one's commit then fails, so the step still runs once). By default the
     * step's lease: a frozen holder then blocks its key no longer than a lapsed claim outside a
     * transaction would. Set it longer when a step's body waits on something else (a remote call)
     * between two of its statements for longer than its lease.
     *
     * @param timeout positive, whole milliseconds; {@code null} for the step's lease
     * @return this builder
     */
    public Builder idleInTransactionTimeout(Duration timeout) {
      this.idleInTransactionTimeout =
          timeout == null ? null : Durations.requirePositive(timeout, "idleInTransactionTimeout");
      return this;
    }

    /**
     * @return the configuration
     */
    public PostgresStoreConfig build() {
      return new PostgresStoreConfig(this);
    }

    private static String identifier(String value, String what) {
      Objects.requireNonNull(value, what);
      if (!IDENTIFIER.matcher(value).matches()) {
        throw new SigloConfigurationException(
            what
                + " '"
                + value
                + "' is not a valid SQL identifier (lowercase letters, digits and _,"
                + " starting with a letter or _, at most 52 characters)");
      }
      return value;
    }
  }
}
