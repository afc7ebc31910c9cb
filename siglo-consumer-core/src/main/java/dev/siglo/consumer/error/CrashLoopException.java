package dev.siglo.consumer.error;

/**
 * A message's claim was taken over from a dead holder as many times as {@code maxTakeovers} allows:
 * whatever runs it dies (out of memory, a native crash, a halt). The message is dead-lettered as
 * {@code CRASH_LOOP} without running again, and its record's counts are forgotten so a replay after
 * the fix runs it.
 */
public final class CrashLoopException extends PermanentException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what happened, naming the key and the count
   */
  public CrashLoopException(String message) {
    super(message);
  }
}
