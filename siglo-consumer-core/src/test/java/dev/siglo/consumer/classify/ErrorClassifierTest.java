package dev.siglo.consumer.classify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.siglo.consumer.error.IdempotencyConflictException;
import dev.siglo.consumer.error.IdempotencyKeyReuseException;
import dev.siglo.consumer.error.IdempotencyLeaseLostException;
import dev.siglo.consumer.error.IdempotencyStoreUnavailableException;
import dev.siglo.consumer.error.MissingIdempotencyKeyException;
import dev.siglo.consumer.error.PayloadDecodingException;
import dev.siglo.consumer.error.PermanentException;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.error.TransientException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLTransientConnectionException;
import java.util.Properties;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ErrorClassifierTest {
  static class CardDeclinedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CardDeclinedException(String m) {
      super(m);
    }
  }

  static class GatewayException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    GatewayException(String m) {
      super(m);
    }
  }

  static class StolenCardException extends GatewayException {
    private static final long serialVersionUID = 1L;

    StolenCardException(String m) {
      super(m);
    }
  }

  private final ErrorClassifier defaults = ErrorClassifier.defaults();

  @Test
  void builtInDefaultsClassifySigloAndJdkFailures() {
    assertThat(defaults.classify(new PermanentException("declined")))
        .isEqualTo(ErrorClass.PERMANENT);
    assertThat(defaults.classify(new PayloadDecodingException("bad", null)))
        .isEqualTo(ErrorClass.PERMANENT);
    assertThat(defaults.classify(new MissingIdempotencyKeyException("none")))
        .isEqualTo(ErrorClass.PERMANENT);
    assertThat(defaults.classify(new IdempotencyKeyReuseException("reuse")))
        .isEqualTo(ErrorClass.PERMANENT);
    assertThat(defaults.classify(new TransientException("t"))).isEqualTo(ErrorClass.TRANSIENT);
    assertThat(defaults.classify(new IdempotencyStoreUnavailableException("down")))
        .isEqualTo(ErrorClass.TRANSIENT);
    assertThat(defaults.classify(new IdempotencyConflictException("busy")))
        .isEqualTo(ErrorClass.TRANSIENT);
    assertThat(defaults.classify(new IdempotencyLeaseLostException("lost")))
        .isEqualTo(ErrorClass.TRANSIENT);
    assertThat(defaults.classify(new SocketTimeoutException("read timed out")))
        .isEqualTo(ErrorClass.TRANSIENT);
    assertThat(defaults.classify(new TimeoutException())).isEqualTo(ErrorClass.TRANSIENT);
    assertThat(defaults.classify(new SQLTransientConnectionException("gone")))
        .isEqualTo(ErrorClass.TRANSIENT);
  }

  @Test
  void unknownFailuresGetTheConfigurableDefault() {
    assertThat(defaults.classifyDetailed(new IllegalStateException("?")))
        .extracting(Classification::errorClass, Classification::rule)
        .containsExactly(ErrorClass.TRANSIENT, "default");
    ErrorClassifier strict = ErrorClassifier.custom().defaultClass(ErrorClass.PERMANENT).build();
    assertThat(strict.classify(new IllegalStateException("?"))).isEqualTo(ErrorClass.PERMANENT);
    assertThat(strict.classify(new IOException("still transient"))).isEqualTo(ErrorClass.TRANSIENT);
  }

  @Test
  void wrappersAreLookedThroughToTheDecisiveCause() {
    CardDeclinedException declined = new CardDeclinedException("card declined");
    ErrorClassifier c = ErrorClassifier.custom().permanentOn(CardDeclinedException.class).build();
    Throwable wrapped =
        new ExecutionException(
            new CompletionException(new InvocationTargetException(new RuntimeException(declined))));
    Classification result = c.classifyDetailed(wrapped);
    assertThat(result.errorClass()).isEqualTo(ErrorClass.PERMANENT);
    assertThat(result.decisive()).isSameAs(declined);
    assertThat(c.isPermanentBusinessError(wrapped)).isTrue();
    assertThat(defaults.classify(new UncheckedIOException(new IOException("reset"))))
        .isEqualTo(ErrorClass.TRANSIENT);
  }

  @Test
  void theOutermostSigloMarkerOfTheChainDecides() {
    assertThat(defaults.classify(new TransientException("outer", new PermanentException("inner"))))
        .isEqualTo(ErrorClass.TRANSIENT);
    assertThat(defaults.classify(new PermanentException("outer", new TransientException("inner"))))
        .isEqualTo(ErrorClass.PERMANENT);
    assertThat(
            defaults.classify(
                new RuntimeException(new PermanentException("inner", new IOException()))))
        .isEqualTo(ErrorClass.PERMANENT);
  }

  @Test
  void userRulesComeFirstInOrderAndSubclassesMatch() {
    ErrorClassifier c =
        ErrorClassifier.custom()
            .permanentOn(StolenCardException.class)
            .transientOn(GatewayException.class)
            .permanentOn(IOException.class)
            .build();
    assertThat(c.classify(new StolenCardException("stolen"))).isEqualTo(ErrorClass.PERMANENT);
    assertThat(c.classify(new GatewayException("502"))).isEqualTo(ErrorClass.TRANSIENT);
    assertThat(c.classify(new SocketTimeoutException()))
        .as("user rule beats built-in")
        .isEqualTo(ErrorClass.PERMANENT);
    ErrorClassifier reversed =
        ErrorClassifier.custom()
            .transientOn(GatewayException.class)
            .permanentOn(StolenCardException.class)
            .build();
    assertThat(reversed.classify(new StolenCardException("stolen")))
        .as("first match wins")
        .isEqualTo(ErrorClass.TRANSIENT);
  }

  @Test
  void predicateAndMessagePatternRules() {
    ErrorClassifier c =
        ErrorClassifier.custom()
            .permanentMessage("(?i)account not found|invalid_currency")
            .permanentWhen(
                "HTTP 4xx", t -> t.getMessage() != null && t.getMessage().matches("HTTP 4\\d\\d.*"))
            .transientMessage("HTTP 5\\d\\d")
            .build();
    assertThat(c.classify(new RuntimeException("Account NOT found: 42")))
        .isEqualTo(ErrorClass.PERMANENT);
    assertThat(c.classify(new RuntimeException("HTTP 404 no such order")))
        .isEqualTo(ErrorClass.PERMANENT);
    assertThat(c.classify(new RuntimeException("HTTP 503 upstream")))
        .isEqualTo(ErrorClass.TRANSIENT);
    assertThat(c.classify(new RuntimeException((String) null))).isEqualTo(ErrorClass.TRANSIENT);
    assertThat(c.classifyDetailed(new RuntimeException("invalid_currency XYZ")).rule())
        .startsWith("message /");
  }

  @Test
  void causeCyclesAndDeepChainsTerminate() {
    RuntimeException a = new RuntimeException("a");
    RuntimeException b = new RuntimeException("b", a);
    a.initCause(b);
    assertThat(defaults.classify(a)).isEqualTo(ErrorClass.TRANSIENT);
    Throwable deep = new PermanentException("bottom");
    for (int i = 0; i < 100; i++) {
      deep = new RuntimeException(deep);
    }
    assertThat(defaults.classify(deep))
        .as("beyond the depth limit the default applies")
        .isEqualTo(ErrorClass.TRANSIENT);
  }

  @Test
  void rulesLoadFromAPropertiesFileMostSpecificTypeFirst(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("classification.properties");
    Files.writeString(
        file,
        String.join(
            "\n",
            "siglo.classification.transient="
                + GatewayException.class.getName()
                + ", java.lang.IllegalStateException",
            "siglo.classification.permanent=" + StolenCardException.class.getName(),
            "siglo.classification.permanent-message-pattern=account not found",
            "siglo.classification.default=permanent",
            "unrelated.key=ignored"));
    ErrorClassifier c = ErrorClassifier.fromFile(file);
    assertThat(c.classify(new StolenCardException("x"))).isEqualTo(ErrorClass.PERMANENT);
    assertThat(c.classify(new GatewayException("x"))).isEqualTo(ErrorClass.TRANSIENT);
    assertThat(c.classify(new IllegalStateException("x"))).isEqualTo(ErrorClass.TRANSIENT);
    assertThat(c.classify(new RuntimeException("account not found")))
        .isEqualTo(ErrorClass.PERMANENT);
    assertThat(c.classify(new IllegalArgumentException("x"))).isEqualTo(ErrorClass.PERMANENT);
    assertThat(c.defaultClass()).isEqualTo(ErrorClass.PERMANENT);
  }

  @Test
  void unknownClassInTheFileIsAStartUpErrorNamingFileKeyAndClass(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("rules.properties");
    Files.writeString(file, "siglo.classification.permanent=com.acme.CardDeclinedExcepton\n");
    assertThatThrownBy(() -> ErrorClassifier.fromFile(file))
        .isInstanceOf(SigloConfigurationException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("siglo.classification.permanent")
        .hasMessageContaining("'com.acme.CardDeclinedExcepton' not found");
  }

  @Test
  void badFilesAreRejectedWithTheKeyAndProblem(@TempDir Path dir) {
    assertThatThrownBy(() -> load("siglo.classification.transient=java.lang.String"))
        .isInstanceOf(SigloConfigurationException.class)
        .hasMessageContaining("'java.lang.String' is not a Throwable");
    assertThatThrownBy(() -> load("siglo.classification.permanant=java.io.IOException"))
        .isInstanceOf(SigloConfigurationException.class)
        .hasMessageContaining("unknown key 'siglo.classification.permanant'");
    assertThatThrownBy(() -> load("siglo.classification.permanent-message-pattern=([unclosed"))
        .isInstanceOf(SigloConfigurationException.class)
        .hasMessageContaining("invalid regular expression");
    assertThatThrownBy(() -> load("siglo.classification.default=sometimes"))
        .isInstanceOf(SigloConfigurationException.class)
        .hasMessageContaining("'sometimes' is not PERMANENT or TRANSIENT");
    assertThatThrownBy(() -> ErrorClassifier.fromFile(dir.resolve("absent.properties")))
        .isInstanceOf(SigloConfigurationException.class)
        .hasMessageContaining("absent.properties");
  }

  private static ErrorClassifier load(String line) throws IOException {
    Properties p = new Properties();
    p.load(new java.io.StringReader(line));
    return ErrorClassifier.fromProperties(
        p, "test.properties", ErrorClassifierTest.class.getClassLoader());
  }
}
