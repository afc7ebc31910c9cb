package dev.siglo.bench;

/**
 * A benchmark run gave a wrong answer (a record lost, an effect repeated, offsets or a queue left
 * behind) or could not finish. It fails the whole benchmark: a fast wrong answer is not a result.
 */
public final class BenchmarkFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what went wrong, in which run
   */
  public BenchmarkFailure(String message) {
    super(message);
  }
}
