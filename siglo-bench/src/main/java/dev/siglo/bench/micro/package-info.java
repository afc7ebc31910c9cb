/**
 * JMH micro-benchmarks of the engine's per-message cost and its parts (keys, classification, the
 * outcome codec). Run them through {@code dev.siglo.bench.BenchMain} (which reports them with the
 * end-to-end table) or with JMH's own {@code org.openjdk.jmh.Main}.
 */
package dev.siglo.bench.micro;
