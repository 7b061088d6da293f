// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

import java.util.Arrays;

/// The `-Dsmelt.*` system properties that take a number or one of a few words. They are read into
/// static fields while classes initialise, where a thrown exception would surface as an
/// `ExceptionInInitializerError` on every later compile, so a value that is not what the property
/// takes is reported once on standard error, naming it and what it takes, and the default is used.
public final class Settings {
    private Settings() {}

    /// `-Dname=N` with `N ≥ min`, else `fallback`.
    public static int integer(String name, int fallback, int min) {
        return (int) whole(name, fallback, min, Integer.MAX_VALUE);
    }

    /// `-Dname=N` with `N ≥ min`, else `fallback`.
    public static long longValue(String name, long fallback, long min) {
        return whole(name, fallback, min, Long.MAX_VALUE);
    }

    /// `-Dname=word` with `word` one of `allowed`, else `fallback`.
    public static String choice(String name, String fallback, String... allowed) {
        String value = System.getProperty(name);
        if (value == null || Arrays.asList(allowed).contains(value)) return value == null ? fallback : value;
        ignored(name, value, "one of " + String.join(", ", allowed), fallback);
        return fallback;
    }

    private static long whole(String name, long fallback, long min, long max) {
        String value = System.getProperty(name);
        if (value == null) return fallback;
        try {
            long parsed = Long.parseLong(value.strip());
            if (parsed >= min && parsed <= max) return parsed;
        } catch (NumberFormatException notANumber) {
            // reported below, as an out-of-range number is
        }
        ignored(name, value, "a whole number of at least " + min, fallback);
        return fallback;
    }

    private static void ignored(String name, String value, String expected, Object fallback) {
        System.err.printf("smelt: ignoring -D%s=%s: it takes %s; using %s%n", name, value, expected, fallback);
    }
}
