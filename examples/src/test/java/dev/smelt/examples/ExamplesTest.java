// SPDX-License-Identifier: Apache-2.0
package dev.smelt.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/// What `-Dexample=Name` offers runs: every class in `dev.smelt.examples` (the folder, not its
/// `support` package of shared code) has a `main`, and every name the README offers is such a class.
class ExamplesTest {
    private static final Path FOLDER = Path.of("src/main/java/dev/smelt/examples");

    @Test
    void everyClassInTheFolderHasAMainMethod() throws Exception {
        var missing = new ArrayList<String>();
        try (Stream<Path> files = Files.list(FOLDER)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                String name = file.getFileName().toString().replace(".java", "");
                if (!hasMain(Class.forName("dev.smelt.examples." + name))) missing.add(name);
            }
        }
        assertEquals(List.of(), missing, "classes -Dexample= would offer but cannot run; move shared code to dev.smelt.examples.support");
    }

    @Test
    void everyExampleTheReadmeNamesExists() throws IOException, ClassNotFoundException {
        String readme = Files.readString(Path.of("../README.md"));
        // The commands' -Dexample=Name, and the first column of the table under "| `-Dexample=` |".
        var names = new ArrayList<String>();
        Pattern.compile("-Dexample=(\\w+)").matcher(readme).results().map(match -> match.group(1)).forEach(names::add);
        String table = readme.substring(readme.indexOf("| `-Dexample=` |"));
        for (String row : table.lines().takeWhile(line -> line.startsWith("|")).skip(2).toList())
            names.add(row.substring(row.indexOf('`') + 1, row.indexOf('`', row.indexOf('`') + 1)));
        assertTrue(names.contains("Digits") && names.contains("TrainMlp"), names.toString());
        for (String name : names) {
            if (name.equals("Name")) continue; // the placeholder in "-Dexample=Name runs …"
            assertTrue(hasMain(Class.forName("dev.smelt.examples." + name)), name + " is offered in the README but has no main method");
        }
    }

    @Test
    void theReadmesPomIsTheUserProjectThatTheBuildRuns() throws IOException {
        String readme = Files.readString(Path.of("../README.md"));
        String section = readme.substring(readme.indexOf("## Using Smelt from your own project"));
        String shown = section.substring(section.indexOf("```xml\n") + 7, section.indexOf("\n```", section.indexOf("```xml\n")));
        String built = Files.readString(Path.of("src/it/user-project/pom.xml")).lines()
                .filter(line -> !line.startsWith("<!-- SPDX") && !line.startsWith("<!-- A user")).reduce((a, b) -> a + "\n" + b).orElseThrow()
                .replace("@project.version@", version()).strip();
        assertEquals(built, shown, "README's pom.xml and examples/src/it/user-project/pom.xml");
    }

    /// The version in the root pom, the one the invoker writes for `@project.version@`.
    private static String version() throws IOException {
        String pom = Files.readString(Path.of("../pom.xml"));
        int parent = pom.indexOf("<artifactId>smelt-parent</artifactId>");
        return pom.substring(pom.indexOf("<version>", parent) + 9, pom.indexOf("</version>", parent));
    }

    private static boolean hasMain(Class<?> type) {
        try {
            Method main = type.getMethod("main", String[].class);
            return Modifier.isStatic(main.getModifiers()) && main.getReturnType() == void.class;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
