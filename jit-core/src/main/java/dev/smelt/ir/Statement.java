// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/// The tokens of one node line, `%name = op %operand… key=value… word… : type`, for [Parser].
/// Attributes and words are removed as the operator's constructor call reads them, so that
/// [#finish] can reject whatever is left over.
final class Statement {
    final String name;
    final String op;
    final List<String> operands = new ArrayList<>();
    final Parser.Type type;
    private final Map<String, String> attributes = new LinkedHashMap<>();
    private final List<String> words = new ArrayList<>();

    Statement(String text) {
        int colon = text.lastIndexOf(':');
        Check.that(colon >= 0, "missing ': type' at the end");
        type = Parser.Type.parse(text.substring(colon + 1).strip());
        String[] tokens = text.substring(0, colon).strip().split("\\s+");
        Check.that(tokens.length >= 3 && tokens[1].equals("="), "expected '%%name = op …'");
        name = tokens[0];
        op = tokens[2];
        for (int index = 3; index < tokens.length; index++) {
            String token = tokens[index];
            int equals = token.indexOf('=');
            if (token.startsWith("%")) operands.add(token);
            else if (equals < 0) words.add(token);
            else Check.that(attributes.put(token.substring(0, equals), token.substring(equals + 1)) == null,
                        "attribute %s is given twice", token.substring(0, equals));
        }
    }

    /// The value of `key=3`.
    int integer(String key) {
        String value = attribute(key);
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("malformed attribute %s=%s: expected an integer".formatted(key, value), e);
        }
    }

    /// The value of `key=0.125`.
    double real(String key) {
        String value = attribute(key);
        try {
            return Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("malformed attribute %s=%s: expected a number".formatted(key, value), e);
        }
    }

    /// The value of `key=word`.
    String word(String key) { return attribute(key); }

    /// The value of `key=[0,2]`.
    List<Integer> integers(String key) {
        String value = attribute(key);
        Check.that(value.startsWith("[") && value.endsWith("]"), "malformed attribute %s=%s: expected a list like [0,2]", key, value);
        try {
            return value.length() == 2 ? List.of() : integerList(value.substring(1, value.length() - 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("malformed attribute %s=%s: expected integers".formatted(key, value), e);
        }
    }

    /// Whether the word `flag` is present.
    boolean flag(String flag) { return words.remove(flag); }

    /// The one bare number, as `const` takes it: `1.5`, `-0.0`, `NaN`, `-Infinity`, `1.0E-5`.
    double number() {
        Check.that(words.size() == 1, "%s takes one number, not %d words", op, words.size());
        String word = words.removeFirst();
        try {
            return Double.parseDouble(word);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("malformed number '" + word + "'", e);
        }
    }

    /// Rejects attributes and words that the operator did not read, and operands of `const`/`iota`.
    void finish() {
        Check.that(attributes.isEmpty(), "unexpected attribute%s %s for %s", attributes.size() == 1 ? "" : "s", attributes.keySet(), op);
        Check.that(words.isEmpty(), "unexpected %s for %s", words, op);
        Check.that(!(op.equals("const") || op.equals("iota")) || operands.isEmpty(), "%s takes no operands", op);
    }

    private String attribute(String key) {
        String value = attributes.remove(key);
        Check.that(value != null, "missing attribute %s=", key);
        return value;
    }

    /// `0,2` as a list of integers.
    static List<Integer> integerList(String text) {
        var values = new ArrayList<Integer>();
        for (String part : text.split(",", -1)) values.add(Integer.parseInt(part.strip()));
        return values;
    }
}
