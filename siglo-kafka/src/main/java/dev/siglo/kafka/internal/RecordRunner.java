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

  /**
   * Runs a batch of records (each at its {@link Work#dispatchedAttempt}), at most one of each lane.
   * The default runs them one by one.
   *
   * @param batch the records, at least one
   * @return one answer per record, in order; never null
   */
  default java.util.List<Completion> runAll(java.util.List<Work> batch) {
    java.util.List<Completion> out = new java.util.ArrayList<>(batch.size());
    for (Work w : batch) {
      out.add(run(w, w.dispatchedAttempt));
    }
    return out;
  }
}
