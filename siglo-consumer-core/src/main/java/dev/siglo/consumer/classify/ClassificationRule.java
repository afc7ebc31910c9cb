package dev.siglo.consumer.classify;

import java.util.Objects;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * One ordered rule of an {@link ErrorClassifier}: a test applied to each exception of a cause
 * chain, and the class it answers when the test matches. Immutable and thread-safe when the
 * predicate is.
 *
 * @param description what the rule matches, for logs and {@link Classification#rule()}
 * @param matcher the test applied to one exception of the chain
 * @param errorClass the answer when it matches
 */
public record ClassificationRule(
    String description, Predicate<Throwable> matcher, ErrorClass errorClass) {

  /**
   * Validates the components.
   *
   * @param description see the record component
   * @param matcher see the record component
   * @param errorClass see the record component
   */
  public ClassificationRule {
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(matcher, "matcher");
    Objects.requireNonNull(errorClass, "errorClass");
  }

  /**
   * @param type an exception type; subclasses match too
   * @param errorClass the answer
   * @return a rule matching that type anywhere in the cause chain
   */
  public static ClassificationRule ofType(Class<? extends Throwable> type, ErrorClass errorClass) {
    Objects.requireNonNull(type, "type");
    return new ClassificationRule("type " + type.getName(), type::isInstance, errorClass);
  }

  /**
   * @param description what the predicate tests
   * @param predicate the test
   * @param errorClass the answer
   * @return a rule matching when the predicate holds for an exception of the chain
   */
  public static ClassificationRule when(
      String description, Predicate<Throwable> predicate, ErrorClass errorClass) {
    return new ClassificationRule("predicate " + description, predicate, errorClass);
  }

  /**
   * @param pattern a regular expression searched for ({@code find}) in exception messages
   * @param errorClass the answer
   * @return a rule matching when an exception message of the chain contains the pattern
   */
  public static ClassificationRule messageMatches(Pattern pattern, ErrorClass errorClass) {
    Objects.requireNonNull(pattern, "pattern");
    return new ClassificationRule(
        "message /" + pattern.pattern() + "/",
        t -> t.getMessage() != null && pattern.matcher(t.getMessage()).find(),
        errorClass);
  }
}
