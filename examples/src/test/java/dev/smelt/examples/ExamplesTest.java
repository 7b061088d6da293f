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

    private static boolean hasMain(Class<?> type) {
        try {
            Method main = type.getMethod("main", String[].class);
            return Modifier.isStatic(main.getModifiers()) && main.getReturnType() == void.class;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
