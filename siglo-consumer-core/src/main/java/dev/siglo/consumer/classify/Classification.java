package dev.siglo.consumer.classify;

import java.util.Objects;

/**
 * The answer of {@link ErrorClassifier#classifyDetailed(Throwable)}: the class, the exception of
 * the cause chain that decided it, and the rule that matched.
 *
 * @param errorClass the class
 * @param decisive the exception in the cause chain the matching rule looked at (the outermost one
 *     when the default decided)
 * @param rule a description of the rule that matched, or {@code default}
 */
public record Classification(ErrorClass errorClass, Throwable decisive, String rule) {
  /** The {@link #rule()} of a classification no rule matched. */
  public static final String DEFAULT_RULE = "default";

  /**
   * Validates the components.
   *
   * @param errorClass see the record component
   * @param decisive see the record component
   * @param rule see the record component
   */
  public Classification {
    Objects.requireNonNull(errorClass, "errorClass");
    Objects.requireNonNull(decisive, "decisive");
    Objects.requireNonNull(rule, "rule");
  }

  /**
   * @return whether no rule matched and the classifier's default class decided
   */
  public boolean byDefault() {
    return DEFAULT_RULE.equals(rule);
  }
}
