package dev.siglo.consumer.classify;

/** The class of a failure. An enum so that more classes can be added later. */
public enum ErrorClass {
  /** Retrying cannot help: the decline is cached and the message acknowledged. */
  PERMANENT,
  /** Retrying may help: the claim is released and the message retried. */
  TRANSIENT
}
