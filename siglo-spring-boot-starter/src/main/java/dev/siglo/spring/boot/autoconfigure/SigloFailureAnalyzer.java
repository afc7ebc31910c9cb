package dev.siglo.spring.boot.autoconfigure;

import dev.siglo.spring.boot.SigloPropertyException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a {@link SigloPropertyException} that stopped the start-up into Boot's failure report: the
 * description names the property and the problem, the action says what to change. Registered in
 * {@code META-INF/spring.factories}.
 */
public final class SigloFailureAnalyzer extends AbstractFailureAnalyzer<SigloPropertyException> {
  /** Created by Boot. */
  public SigloFailureAnalyzer() {}

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, SigloPropertyException cause) {
    return new FailureAnalysis(
        "Siglo cannot start: the property '" + cause.property() + "' is wrong: " + cause.problem(),
        "Correct '"
            + cause.property()
            + "' in the application's configuration (application.yml, application.properties or"
            + " the environment), or switch Siglo off with siglo.enabled=false.",
        cause);
  }
}
