package dev.siglo.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The project's architecture, checked on the compiled main classes of every published module (the
 * rules are described in docs/ARCHITECTURE.md): core's packages form no cycle and only the engine
 * sees the engine; the engine keeps its internals package-private; no module reaches into another
 * module's {@code internal} package; no public signature exposes a type a caller cannot use.
 */
class ArchitectureTest {
  private static final String CORE = "dev.siglo.consumer";

  /** The engine's public types: the runtime SPI. Everything else in the engine is hidden. */
  private static final Set<String> ENGINE_SPI =
      Set.of(
          "Batching",
          "ConsumerBuilder",
          "Disposition",
          "HandlerShape",
          "IntakeGate",
          "MessageProcessor",
          "MessageProcessorConfig");

  private static JavaClasses main;

  @BeforeAll
  static void importMainClasses() {
    main =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.siglo");
  }

  @Test
  void importsEveryPublishedModule() {
    List<String> packages = new ArrayList<>();
    main.forEach(c -> packages.add(c.getPackageName()));
    org.assertj.core.api.Assertions.assertThat(packages)
        .contains(
            CORE,
            CORE + ".engine",
            "dev.siglo.kafka.internal",
            "dev.siglo.sqs.internal",
            "dev.siglo.store.redis",
            "dev.siglo.store.postgres",
            "dev.siglo.launcher",
            "dev.siglo.spring.boot",
            "dev.siglo.spring.boot.autoconfigure",
            "dev.siglo.testkit");
  }

  @Test
  void corePackagesFormNoCycle() {
    slices().assignedFrom(corePackages()).should().beFreeOfCycles().check(main);
  }

  @Test
  void onlyTheEngineAndTheRuntimesDependOnTheEngine() {
    noClasses()
        .that()
        .resideInAPackage(CORE + "..")
        .and()
        .resideOutsideOfPackage(CORE + ".engine..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage(CORE + ".engine..")
        .because("the API, SPI and stores must not know how the engine runs a message")
        .check(main);
  }

  @Test
  void theStartersUserApiDoesNotKnowItsAutoConfiguration() {
    noClasses()
        .that()
        .resideInAPackage("dev.siglo.spring.boot")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.siglo.spring.boot.autoconfigure..")
        .because(
            "applications use SigloProperties, SigloConsumers and customizers; Boot alone uses the"
                + " auto-configuration")
        .check(main);
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.siglo.spring.boot..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.siglo.spring.boot..")
        .because("the starter sits on top: no runtime, store or tool may need Spring")
        .check(main);
  }

  @Test
  void theStoreSpiDependsOnlyOnErrorsAndSupport() {
    classes()
        .that()
        .resideInAPackage(CORE + ".store..")
        .should()
        .onlyDependOnClassesThat(
            DescribedPredicate.describe(
                "outside core, or in core's store, error or support packages",
                (JavaClass c) ->
                    !c.getPackageName().startsWith(CORE)
                        || c.getPackageName().equals(CORE + ".store")
                        || c.getPackageName().equals(CORE + ".error")
                        || c.getPackageName().equals(CORE + ".support")))
        .because("a store author implements the store SPI without the rest of the core")
        .check(main);
  }

  @Test
  void theEngineKeepsItsInternalsPackagePrivate() {
    classes()
        .that()
        .resideInAPackage(CORE + ".engine")
        .and()
        .areTopLevelClasses()
        .and()
        .arePublic()
        .should(
            new ArchCondition<>("be one of the runtime SPI types " + ENGINE_SPI) {
              @Override
              public void check(JavaClass c, ConditionEvents events) {
                if (!ENGINE_SPI.contains(c.getSimpleName())) {
                  events.add(
                      SimpleConditionEvent.violated(
                          c, c.getName() + " is public but not part of the runtime SPI"));
                }
              }
            })
        .check(main);
  }

  @Test
  void noModuleReachesIntoAnotherModulesInternals() {
    classes()
        .should(
            new ArchCondition<>("depend on an internal package only of their own module") {
              @Override
              public void check(JavaClass origin, ConditionEvents events) {
                for (Dependency d : origin.getDirectDependenciesFromSelf()) {
                  String target = d.getTargetClass().getPackageName();
                  int internal = target.indexOf(".internal");
                  if (target.startsWith("dev.siglo.")
                      && internal > 0
                      && !origin.getPackageName().startsWith(target.substring(0, internal))) {
                    events.add(SimpleConditionEvent.violated(d, d.getDescription()));
                  }
                }
              }
            })
        .check(main);
  }

  @Test
  void publicSignaturesExposeOnlyPublicApiTypes() {
    codeUnits()
        .that()
        .areDeclaredInClassesThat(publicApiClass())
        .and()
        .arePublic()
        .or()
        .areDeclaredInClassesThat(publicApiClass())
        .and()
        .areProtected()
        .should(exposeOnlyPublicApiTypes())
        .check(main);
  }

  private static DescribedPredicate<JavaClass> publicApiClass() {
    return DescribedPredicate.describe(
        "public classes outside internal packages",
        c ->
            c.getModifiers().contains(JavaModifier.PUBLIC)
                && !c.getPackageName().contains(".internal")
                && c.getPackageName().startsWith("dev.siglo"));
  }

  private static ArchCondition<JavaCodeUnit> exposeOnlyPublicApiTypes() {
    return new ArchCondition<>("expose only public types outside internal packages") {
      @Override
      public void check(JavaCodeUnit unit, ConditionEvents events) {
        List<JavaClass> exposed = new ArrayList<>(unit.getRawParameterTypes());
        exposed.add(unit.getRawReturnType());
        for (JavaClass type : exposed) {
          JavaClass base = type.isArray() ? type.getBaseComponentType() : type;
          if (!base.getPackageName().startsWith("dev.siglo")) {
            continue;
          }
          boolean hidden =
              base.getPackageName().contains(".internal")
                  || !base.getModifiers().contains(JavaModifier.PUBLIC);
          if (hidden) {
            events.add(
                SimpleConditionEvent.violated(
                    unit, unit.getFullName() + " exposes " + base.getName()));
          }
        }
      }
    };
  }

  /** Core's packages, the root package included, one slice each. */
  private static SliceAssignment corePackages() {
    return new SliceAssignment() {
      @Override
      public SliceIdentifier getIdentifierOf(JavaClass c) {
        String p = c.getPackageName();
        if (p.equals(CORE)) {
          return SliceIdentifier.of("consumer (API)");
        }
        if (p.startsWith(CORE + ".")) {
          String rest = p.substring(CORE.length() + 1);
          int dot = rest.indexOf('.');
          return SliceIdentifier.of(dot < 0 ? rest : rest.substring(0, dot));
        }
        return SliceIdentifier.ignore();
      }

      @Override
      public String getDescription() {
        return "core packages";
      }
    };
  }
}
