package dev.siglo.kafka.internal;

/**
 * Runs one record on a worker thread and answers for it. The runtime's runner is {@link
 * EngineRunner}; unit tests of the {@link Dispatcher} give their own.
 */
@FunctionalInterface
interface RecordRunner {
  /**
   * @param work the record
   * @param attempt the delivery attempt being run (1 for the first)
   * @return the answer handed back to the poll thread; never null
   */
  Completion run(Work work, int attempt);
}
