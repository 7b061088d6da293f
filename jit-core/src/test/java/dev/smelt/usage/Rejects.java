// SPDX-License-Identifier: Apache-2.0
package dev.smelt.usage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.SmeltException;
import org.junit.jupiter.api.function.Executable;

/// The assertion every error test makes: the call throws a [SmeltException] of the expected op,
/// whose message starts with the op, contains each fragment, and ends with the caller's line, a
/// test of this package (which stands where a user's code would).
final class Rejects {
    private Rejects() {}

    static SmeltException rejects(String op, Executable call, String... fragments) {
        var error = assertThrows(SmeltException.class, call);
        String message = error.getMessage();
        assertEquals(op, error.op(), message);
        assertTrue(message.startsWith(op + ": "), message);
        for (String fragment : fragments) assertTrue(message.contains(fragment), () -> "missing '" + fragment + "' in: " + message);
        assertTrue(message.contains("(at dev.smelt.usage."), () -> "no call site in: " + message);
        return error;
    }
}
