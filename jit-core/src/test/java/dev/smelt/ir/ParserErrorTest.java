// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/// Each malformed text is rejected with `line N: what is wrong: the line`.
class ParserErrorTest {
    private static final String HEADER = "graph(%0: f32[2], %1: i32[2]) {\n";

    /// A graph whose node lines start on line 2 and that returns `%0`.
    private static String graph(String... body) {
        return HEADER + String.join("", Stream.of(body).map(line -> "  " + line + "\n").toList()) + "  return %0\n}\n";
    }

    static Stream<Arguments> errors() {
        return Stream.of(
                Arguments.of(graph("%2 = frobnicate %0 : f32[2]"), 2, "unknown op 'frobnicate'"),
                Arguments.of(graph("%2 = neg %7 : f32[2]"), 2, "undefined %7"),
                Arguments.of(graph("%2 = neg %3 : f32[2]", "%3 = neg %0 : f32[2]"), 2, "%3 is used before its definition on line 3"),
                Arguments.of(graph("%2 = neg %0 : f16[2]"), 2, "bad type 'f16[2]'"),
                Arguments.of(graph("%2 = neg %0 : f32[2,x]"), 2, "bad type 'f32[2,x]'"),
                Arguments.of(graph("%2 = neg %0 : f32[-2]"), 2, "bad type 'f32[-2]'"),
                Arguments.of(graph("%2 = neg %0"), 2, "missing ': type'"),
                Arguments.of(graph("%2 = neg %0 : f32[3]"), 2, "type f32[3] does not match the inferred f32[2]"),
                Arguments.of(graph("%2 = lt %0 %0 : f32[2]"), 2, "type f32[2] does not match the inferred bool[2]"),
                Arguments.of(graph("%2 = sum %0 axes=0 : f32[1]"), 2, "malformed attribute axes=0"),
                Arguments.of(graph("%2 = sum %0 axes=[a] : f32[1]"), 2, "malformed attribute axes=[a]"),
                Arguments.of(graph("%2 = slice %0 axis=0 start=a stop=1 step=1 : f32[1]"), 2, "malformed attribute start=a"),
                Arguments.of(graph("%2 = slice %0 axis=0 start=0 stop=1 : f32[1]"), 2, "missing attribute step="),
                Arguments.of(graph("%2 = neg %0 axis=1 : f32[2]"), 2, "unexpected attribute [axis] for neg"),
                Arguments.of(graph("%2 = neg %0 fast : f32[2]"), 2, "unexpected [fast] for neg"),
                Arguments.of(graph("%2 = iota axis=0 axis=0 : f32[2]"), 2, "attribute axis is given twice"),
                Arguments.of(graph("%2 = add %0 : f32[2]"), 2, "add takes 2 operands, not 1"),
                Arguments.of(graph("%2 = add %0 %1 : f32[2]"), 2, "add: operands differ, f32 vs i32"),
                Arguments.of(graph("%2 = exp %1 : i32[2]"), 2, "exp needs a float operand, not i32"),
                Arguments.of(graph("%2 = rand %0 : f32[2]"), 2, "rand needs an i32[2] key, not f32[2]"),
                Arguments.of(graph("%2 = randn %1 : i32[4]"), 2, "randn needs a float dtype, not i32"),
                Arguments.of(graph("%2 = rand %1 %1 : f32[2]"), 2, "rand takes 1 operand, not 2"),
                Arguments.of(graph("%2 = neg %0 : f32[2]", "%3 = reshape %2 : f32[3]"), 3, "reshape from [2] to [3] changes the element count"),
                Arguments.of(graph("%2 = matmul %0 %0 : f32[2]"), 2, "matmul needs operands of equal rank ≥ 2"),
                Arguments.of(graph("%2 = const one : f32[]"), 2, "malformed number 'one'"),
                Arguments.of(graph("%2 = const 1.0 %0 : f32[]"), 2, "const takes no operands"),
                Arguments.of(graph("%2 = neg %0 : f32[2]", "%2 = abs %0 : f32[2]"), 3, "%2 is defined twice"),
                Arguments.of(graph("%2 = input 0 : f32[2]"), 2, "inputs are declared in the graph header"),
                Arguments.of(graph("%2 neg %0 : f32[2]"), 2, "expected '%name = op …'"),
                Arguments.of(graph("x = neg %0 : f32[2]"), 2, "expected a %name, not 'x'"),
                Arguments.of("graph(%0 f32[2]) {\n  return %0\n}\n", 1, "malformed input declaration '%0 f32[2]'"),
                Arguments.of("graph(%0: f32[2])\n  return %0\n}\n", 1, "expected 'graph(%0: type, …) {'"),
                Arguments.of("graph(%0: f32[2]) {\n  return %9\n}\n", 2, "undefined %9"),
                Arguments.of("graph(%0: f32[2]) {\n  return\n}\n", 2, "expected 'return %name, …'"),
                Arguments.of("graph(%0: f32[2]) {\n  %1 = neg %0 : f32[2]\n  return %1\n", 3, "expected '}' to end the graph"),
                Arguments.of("\n\n", 2, "a graph needs a header, a return line and '}'"));
    }

    @ParameterizedTest(name = "line {1}: {2}")
    @MethodSource("errors")
    void rejectsWithLineNumberAndReason(String text, int line, String reason) {
        var error = assertThrows(IllegalArgumentException.class, () -> Parser.parse(text));
        String message = error.getMessage();
        assertTrue(message.startsWith("line " + line + ": "), () -> "expected line " + line + ", got: " + message);
        assertTrue(message.contains(reason), () -> "expected '" + reason + "', got: " + message);
        String offending = text.lines().toList().get(line - 1).strip();
        assertTrue(message.endsWith(": " + offending), () -> "expected the line '" + offending + "', got: " + message);
    }
}
