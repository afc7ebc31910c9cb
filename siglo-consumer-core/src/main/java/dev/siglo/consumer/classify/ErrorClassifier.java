package dev.siglo.consumer.classify;

import dev.siglo.consumer.error.PermanentException;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.error.TransientException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Decides whether a failure is {@link ErrorClass#PERMANENT} (a business decline: cached, acked, not
 * retried) or {@link ErrorClass#TRANSIENT} (claim released, retried).
 *
 * <p><b>Precedence.</b> Rules are tried in order and the first match wins: first the user's rules
 * in the order they were added, then the built-in defaults, then the default class. Each rule is
 * tested against every exception of the cause chain, outermost first, so wrappers such as {@code
 * ExecutionException}, {@code CompletionException}, {@code UncheckedIOException} and {@code
 * InvocationTargetException} are looked through. The built-in defaults are, in order:
 *
 * <ol>
 *   <li>the first {@link PermanentException} or {@link TransientException} of the chain decides
 *       (this covers Siglo's own exceptions: payload decoding, missing key and key reuse are
 *       permanent; store unavailable, conflict and lease lost are transient);
 *   <li>{@link IOException}, {@link TimeoutException}, {@link SQLTransientException} and {@link
 *       SQLRecoverableException} are transient.
 * </ol>
 *
 * Anything else gets the default class ({@link ErrorClass#TRANSIENT} unless configured; bounded by
 * the maximum number of deliveries).
 *
 * <p>Classifiers are immutable and thread-safe; rules are compiled once.
 */
public final class ErrorClassifier {
  /** Properties key: comma-separated permanent exception class names. */
  public static final String KEY_PERMANENT = "siglo.classification.permanent";

  /** Properties key: comma-separated transient exception class names. */
  public static final String KEY_TRANSIENT = "siglo.classification.transient";

  /** Properties key: a regular expression; exception messages containing it are permanent. */
  public static final String KEY_PERMANENT_MESSAGE =
      "siglo.classification.permanent-message-pattern";

  /** Properties key: a regular expression; exception messages containing it are transient. */
  public static final String KEY_TRANSIENT_MESSAGE =
      "siglo.classification.transient-message-pattern";

  /** Properties key: {@code PERMANENT} or {@code TRANSIENT}, the class of unmatched failures. */
  public static final String KEY_DEFAULT = "siglo.classification.default";

  private static final String PREFIX = "siglo.classification.";
  private static final Set<String> KNOWN_KEYS =
      Set.of(
          KEY_PERMANENT, KEY_TRANSIENT, KEY_PERMANENT_MESSAGE, KEY_TRANSIENT_MESSAGE, KEY_DEFAULT);
  private static final int MAX_CHAIN_DEPTH = 32;

  /**
   * The first Siglo marker exception of the chain decides; its {@code errorClass} is a placeholder,
   * the marker's type gives the answer.
   */
  private static final ClassificationRule MARKER_RULE =
      new ClassificationRule(
          "built-in: first PermanentException or TransientException of the chain",
          t -> t instanceof PermanentException || t instanceof TransientException,
          ErrorClass.PERMANENT);

  private static final List<ClassificationRule> BUILT_IN = builtInRules();
  private static final ErrorClassifier DEFAULTS = custom().build();

  private final List<ClassificationRule> rules;
  private final ErrorClass defaultClass;

  private ErrorClassifier(List<ClassificationRule> rules, ErrorClass defaultClass) {
    this.rules = rules;
    this.defaultClass = defaultClass;
  }

  /**
   * @return the built-in defaults only
   */
  public static ErrorClassifier defaults() {
    return DEFAULTS;
  }

  /**
   * @return a builder starting with no user rules
   */
  public static Builder custom() {
    return new Builder();
  }

  /**
   * Classifies a failure.
   *
   * @param failure the failure; not {@code null}
   * @return its class
   */
  public ErrorClass classify(Throwable failure) {
    return classifyDetailed(failure).errorClass();
  }

  /**
   * Classifies a failure and says which exception of the chain and which rule decided.
   *
   * @param failure the failure; not {@code null}
   * @return the classification
   */
  public Classification classifyDetailed(Throwable failure) {
    Objects.requireNonNull(failure, "failure");
    List<Throwable> chain = causeChain(failure);
    for (ClassificationRule rule : rules) {
      for (Throwable t : chain) {
        if (rule.matcher().test(t)) {
          ErrorClass answer =
              rule == MARKER_RULE
                  ? (t instanceof PermanentException ? ErrorClass.PERMANENT : ErrorClass.TRANSIENT)
                  : rule.errorClass();
          return new Classification(answer, t, rule.description());
        }
      }
    }
    return new Classification(defaultClass, failure, Classification.DEFAULT_RULE);
  }

  /**
   * Answers with the same rules as {@link #classify(Throwable)}.
   *
   * @param failure the failure
   * @return whether it is a permanent business error
   */
  public boolean isPermanentBusinessError(Throwable failure) {
    return classify(failure) == ErrorClass.PERMANENT;
  }

  /**
   * @return the rules in the order they are tried, built-in defaults last
   */
  public List<ClassificationRule> rules() {
    return rules;
  }

  /**
   * @return the class of failures no rule matches
   */
  public ErrorClass defaultClass() {
    return defaultClass;
  }

  /**
   * Loads rules from a properties file (keys {@value #KEY_PERMANENT}, {@value #KEY_TRANSIENT},
   * {@value #KEY_PERMANENT_MESSAGE}, {@value #KEY_TRANSIENT_MESSAGE}, {@value #KEY_DEFAULT}), with
   * the thread's context class loader.
   *
   * @param file the file
   * @return the classifier
   * @throws SigloConfigurationException naming the file, the key and the problem: an unreadable
   *     file, an unknown key, a class that is not found or is not a {@code Throwable}, a bad
   *     pattern
   */
  public static ErrorClassifier fromFile(Path file) {
    Properties props = new Properties();
    try (InputStream in = Files.newInputStream(file)) {
      props.load(in);
    } catch (IOException | IllegalArgumentException e) {
      throw new SigloConfigurationException(file + ": cannot read classification rules: " + e, e);
    }
    return fromProperties(props, file.toString(), Thread.currentThread().getContextClassLoader());
  }

  /**
   * Loads rules from properties. Type rules are ordered most specific first (a subclass before its
   * superclass), permanent before transient at equal depth; then the permanent message pattern,
   * then the transient one. Keys outside {@code siglo.classification.} are ignored; unknown keys
   * inside it are errors (typos must not be silent).
   *
   * @param props the properties
   * @param source names the source in error messages (a file name)
   * @param loader the class loader that resolves class names
   * @return the classifier
   * @throws SigloConfigurationException naming the source, the key and the problem
   */
  public static ErrorClassifier fromProperties(
      Properties props, String source, ClassLoader loader) {
    Objects.requireNonNull(props, "props");
    for (String key : props.stringPropertyNames()) {
      if (key.startsWith(PREFIX) && !KNOWN_KEYS.contains(key)) {
        throw new SigloConfigurationException(
            source + ": unknown key '" + key + "' (known: " + String.join(", ", KNOWN_KEYS) + ")");
      }
    }
    record TypeRule(Class<? extends Throwable> type, ErrorClass errorClass, int depth) {}
    List<TypeRule> typeRules = new ArrayList<>();
    for (var entry :
        List.of(
            new Object[] {KEY_PERMANENT, ErrorClass.PERMANENT},
            new Object[] {KEY_TRANSIENT, ErrorClass.TRANSIENT})) {
      String key = (String) entry[0];
      ErrorClass errorClass = (ErrorClass) entry[1];
      for (Class<? extends Throwable> type : loadClasses(props, key, source, loader)) {
        typeRules.add(new TypeRule(type, errorClass, depth(type)));
      }
    }
    typeRules.sort(
        (a, b) ->
            a.depth() != b.depth()
                ? Integer.compare(b.depth(), a.depth())
                : a.errorClass().compareTo(b.errorClass()));
    Builder builder = custom();
    typeRules.forEach(r -> builder.rule(ClassificationRule.ofType(r.type(), r.errorClass())));
    pattern(props, KEY_PERMANENT_MESSAGE, source)
        .ifPresent(p -> builder.rule(ClassificationRule.messageMatches(p, ErrorClass.PERMANENT)));
    pattern(props, KEY_TRANSIENT_MESSAGE, source)
        .ifPresent(p -> builder.rule(ClassificationRule.messageMatches(p, ErrorClass.TRANSIENT)));
    String def = props.getProperty(KEY_DEFAULT);
    if (def != null) {
      try {
        builder.defaultClass(ErrorClass.valueOf(def.trim().toUpperCase(java.util.Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        throw new SigloConfigurationException(
            source + ": " + KEY_DEFAULT + ": '" + def + "' is not PERMANENT or TRANSIENT", e);
      }
    }
    return builder.build();
  }

  private static List<Class<? extends Throwable>> loadClasses(
      Properties props, String key, String source, ClassLoader loader) {
    String value = props.getProperty(key);
    List<Class<? extends Throwable>> out = new ArrayList<>();
    if (value == null || value.isBlank()) {
      return out;
    }
    for (String raw : value.split(",")) {
      String name = raw.trim();
      if (name.isEmpty()) {
        continue;
      }
      Class<?> cls;
      try {
        cls = Class.forName(name, false, loader);
      } catch (ClassNotFoundException | LinkageError e) {
        throw new SigloConfigurationException(
            source + ": " + key + ": class '" + name + "' not found", e);
      }
      if (!Throwable.class.isAssignableFrom(cls)) {
        throw new SigloConfigurationException(
            source + ": " + key + ": class '" + name + "' is not a Throwable");
      }
      out.add(cls.asSubclass(Throwable.class));
    }
    return out;
  }

  private static java.util.Optional<Pattern> pattern(Properties props, String key, String source) {
    String value = props.getProperty(key);
    if (value == null || value.isBlank()) {
      return java.util.Optional.empty();
    }
    try {
      return java.util.Optional.of(Pattern.compile(value));
    } catch (java.util.regex.PatternSyntaxException e) {
      throw new SigloConfigurationException(
          source + ": " + key + ": invalid regular expression: " + e.getDescription(), e);
    }
  }

  private static int depth(Class<?> type) {
    int depth = 0;
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      depth++;
    }
    return depth;
  }

  private static List<Throwable> causeChain(Throwable failure) {
    List<Throwable> chain = new ArrayList<>(4);
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable t = failure;
        t != null && chain.size() < MAX_CHAIN_DEPTH && seen.add(t);
        t = t.getCause()) {
      chain.add(t);
    }
    return chain;
  }

  private static List<ClassificationRule> builtInRules() {
    return List.of(
        MARKER_RULE,
        ClassificationRule.ofType(IOException.class, ErrorClass.TRANSIENT),
        ClassificationRule.ofType(TimeoutException.class, ErrorClass.TRANSIENT),
        ClassificationRule.ofType(SQLTransientException.class, ErrorClass.TRANSIENT),
        ClassificationRule.ofType(SQLRecoverableException.class, ErrorClass.TRANSIENT));
  }

  /** Builds an {@link ErrorClassifier}. Not thread-safe. */
  public static final class Builder {
    private final List<ClassificationRule> userRules = new ArrayList<>();
    private ErrorClass defaultClass = ErrorClass.TRANSIENT;

    private Builder() {}

    /**
     * @param rule a rule, tried after the rules added before it
     * @return this builder
     */
    public Builder rule(ClassificationRule rule) {
      userRules.add(Objects.requireNonNull(rule, "rule"));
      return this;
    }

    /**
     * @param types exception types (subclasses included) to classify as permanent
     * @return this builder
     */
    @SafeVarargs
    public final Builder permanentOn(Class<? extends Throwable>... types) {
      for (Class<? extends Throwable> t : types) {
        rule(ClassificationRule.ofType(t, ErrorClass.PERMANENT));
      }
      return this;
    }

    /**
     * @param types exception types (subclasses included) to classify as transient
     * @return this builder
     */
    @SafeVarargs
    public final Builder transientOn(Class<? extends Throwable>... types) {
      for (Class<? extends Throwable> t : types) {
        rule(ClassificationRule.ofType(t, ErrorClass.TRANSIENT));
      }
      return this;
    }

    /**
     * @param description what the predicate tests
     * @param predicate the test on one exception of the chain
     * @return this builder
     */
    public Builder permanentWhen(String description, Predicate<Throwable> predicate) {
      return rule(ClassificationRule.when(description, predicate, ErrorClass.PERMANENT));
    }

    /**
     * @param description what the predicate tests
     * @param predicate the test on one exception of the chain
     * @return this builder
     */
    public Builder transientWhen(String description, Predicate<Throwable> predicate) {
      return rule(ClassificationRule.when(description, predicate, ErrorClass.TRANSIENT));
    }

    /**
     * @param regex searched for in exception messages of the chain
     * @return this builder
     */
    public Builder permanentMessage(String regex) {
      return rule(ClassificationRule.messageMatches(Pattern.compile(regex), ErrorClass.PERMANENT));
    }

    /**
     * @param regex searched for in exception messages of the chain
     * @return this builder
     */
    public Builder transientMessage(String regex) {
      return rule(ClassificationRule.messageMatches(Pattern.compile(regex), ErrorClass.TRANSIENT));
    }

    /**
     * @param defaultClass the class of failures no rule matches
     * @return this builder
     */
    public Builder defaultClass(ErrorClass defaultClass) {
      this.defaultClass = Objects.requireNonNull(defaultClass, "defaultClass");
      return this;
    }

    /**
     * @return the classifier: user rules, then built-in defaults
     */
    public ErrorClassifier build() {
      List<ClassificationRule> all = new ArrayList<>(userRules);
      all.addAll(BUILT_IN);
      return new ErrorClassifier(List.copyOf(all), defaultClass);
    }
  }
}
