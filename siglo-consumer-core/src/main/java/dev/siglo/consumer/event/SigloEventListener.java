package dev.siglo.consumer.event;

/**
 * Receives {@link SigloEvent}s on the worker thread that produced them. Must be fast and
 * thread-safe; an exception it throws is logged and ignored (it never changes a message's fate).
 */
@FunctionalInterface
public interface SigloEventListener {
  /**
   * @param event what happened
   */
  void onEvent(SigloEvent event);
}
