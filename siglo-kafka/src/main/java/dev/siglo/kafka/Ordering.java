package dev.siglo.kafka;

/** How records are ordered while handlers run concurrently. */
public enum Ordering {
  /** Default: records of one record key run one at a time in offset order; keys run in parallel. */
  KEY,
  /** Records of one partition run one at a time in offset order. */
  PARTITION,
  /** No ordering: any record may run while others do. */
  UNORDERED
}
