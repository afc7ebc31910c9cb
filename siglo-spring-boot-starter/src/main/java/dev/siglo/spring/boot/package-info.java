/**
 * Siglo in a Spring Boot application, the user's side: {@link
 * dev.siglo.spring.boot.SigloProperties} ({@code siglo.*}), {@link
 * dev.siglo.spring.boot.SigloConsumerCustomizer} to add what properties cannot say (listeners,
 * hooks, pause conditions), and {@link dev.siglo.spring.boot.SigloConsumers}, the running
 * consumers. The auto-configuration itself is in {@code dev.siglo.spring.boot.autoconfigure}.
 */
package dev.siglo.spring.boot;
