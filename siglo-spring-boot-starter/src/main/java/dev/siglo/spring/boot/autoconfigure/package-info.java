/**
 * Spring Boot's side: the auto-configuration classes named in {@code
 * META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports}, the failure
 * analyzer, and the Actuator health and info contributors. Applications do not call these classes;
 * they replace a bean by declaring their own.
 */
package dev.siglo.spring.boot.autoconfigure;
