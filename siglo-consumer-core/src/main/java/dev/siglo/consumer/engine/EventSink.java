package dev.siglo.consumer.engine;

import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.event.SigloEventListener;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Delivers events to listeners; callers check {@link #enabled()} before building an event. */
final class EventSink {
  private static final Logger log = LoggerFactory.getLogger(EventSink.class);
  private final List<SigloEventListener> listeners;

  EventSink(List<SigloEventListener> listeners) {
    this.listeners = List.copyOf(listeners);
  }

  boolean enabled() {
    return !listeners.isEmpty();
  }

  void emit(SigloEvent event) {
    for (SigloEventListener l : listeners) {
      try {
        l.onEvent(event);
      } catch (RuntimeException e) {
        log.warn("event listener {} failed on {}", l, event.getClass().getSimpleName(), e);
      }
    }
  }
}
