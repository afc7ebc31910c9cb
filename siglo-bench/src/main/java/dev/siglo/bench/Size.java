package dev.siglo.bench;

/**
 * How large a benchmark run is. {@code tiny} only keeps the code from rotting (CI runs it); {@code
 * default} runs in a few minutes; {@code full} is the size the scenarios name.
 *
 * @param kafkaRecords records of the Kafka throughput scenario
 * @param postgresRecords records of its PostgreSQL configuration (slower per record)
 * @param peerRecords records of its hand-written Redis peer (sequential: its rate is flat)
 * @param slowRecords records of the slow-handler scenario (Siglo)
 * @param slowLargeRecords records of its larger run (0: none)
 * @param slowKeys record keys of the slow-handler scenario
 * @param slowBaselineRecords records the sequential baseline handles (its rate is flat)
 * @param sqsMessages messages of the SQS scenario
 * @param stormKeys keys of the duplicate storm (each arrives five times)
 * @param stormBaselineKeys keys the storm's sequential baseline handles (its rate is flat)
 * @param repetitions measured repetitions of each configuration
 * @param jmhForks JMH forks (0: in this JVM)
 * @param jmhIterations JMH warm-up and measurement iterations
 * @param jmhIterationMillis the length of a JMH iteration
 * @param shareRecords records of the share-group scenario's no-op runs (a fifth of them for its 5
 *     ms Siglo runs, a fiftieth for its sequential 5 ms baseline)
 */
record Size(
    int kafkaRecords,
    int postgresRecords,
    int peerRecords,
    int slowRecords,
    int slowLargeRecords,
    int slowKeys,
    int slowBaselineRecords,
    int sqsMessages,
    int stormKeys,
    int stormBaselineKeys,
    int repetitions,
    int jmhForks,
    int jmhIterations,
    int jmhIterationMillis,
    int shareRecords) {

  static Size named(String name) {
    return switch (name) {
      case "tiny" ->
          new Size(3_000, 1_000, 1_000, 400, 0, 40, 100, 300, 100, 50, 1, 0, 1, 100, 2_000);
      case "default" ->
          new Size(
              200_000, 50_000, 20_000, 20_000, 200_000, 2_000, 1_000, 30_000, 4_000, 400, 3, 1, 5,
              1000, 50_000);
      case "full" ->
          new Size(
              1_000_000, 200_000, 100_000, 20_000, 200_000, 2_000, 4_000, 50_000, 4_000, 4_000, 5,
              2, 5, 1000, 200_000);
      default ->
          throw new IllegalArgumentException(
              "unknown size '" + name + "' (use tiny, default or full)");
    };
  }
}
