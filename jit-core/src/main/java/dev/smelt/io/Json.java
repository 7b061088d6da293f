// SPDX-License-Identifier: Apache-2.0
package dev.smelt.io;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/// A strict JSON (RFC 8259) reader, and the string quoting the writers need. Values become
/// `Map<String, Object>` (in file order; a repeated key is an error), `List<Object>`, `String`,
/// `Long` (an integer literal), `Double` (a literal with a fraction or exponent), `Boolean` and
/// `null`. Anything RFC 8259 does not allow is refused: comments, trailing commas, single quotes,
/// leading zeros, unescaped control characters, text after the value.
final class Json {
    /// Deeper nesting than any header needs is refused rather than allowed to overflow the stack.
    private static final int MAX_DEPTH = 64;

    private final String text;
    private int at;

    private Json(String text) { this.text = text; }

    /// The value `text` holds.
    static Object parse(String text) throws FormatException {
        var json = new Json(text);
        json.skipSpace();
        Object value = json.value(0);
        json.skipSpace();
        if (json.at != text.length()) throw json.error("unexpected text after the value");
        return value;
    }

    /// `text` as a JSON string literal.
    static String quote(String text) {
        var out = new StringBuilder(text.length() + 2).append('"');
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> out.append(c < 0x20 ? "\\u%04x".formatted((int) c) : String.valueOf(c));
            }
        }
        return out.append('"').toString();
    }

    private Object value(int depth) throws FormatException {
        if (depth > MAX_DEPTH) throw error("nested deeper than " + MAX_DEPTH + " levels");
        if (at >= text.length()) throw error("the text ends where a value was expected");
        char c = text.charAt(at);
        return switch (c) {
            case '{' -> object(depth);
            case '[' -> array(depth);
            case '"' -> string();
            case 't' -> word("true", Boolean.TRUE);
            case 'f' -> word("false", Boolean.FALSE);
            case 'n' -> word("null", null);
            default -> {
                if (c == '-' || c >= '0' && c <= '9') yield number();
                throw error("unexpected character '" + c + "'");
            }
        };
    }

    private Map<String, Object> object(int depth) throws FormatException {
        var members = new LinkedHashMap<String, Object>();
        at++;
        skipSpace();
        if (take('}')) return members;
        do {
            skipSpace();
            if (at >= text.length() || text.charAt(at) != '"') throw error("expected a member name in double quotes");
            int start = at;
            String key = string();
            skipSpace();
            expect(':');
            skipSpace();
            Object value = value(depth + 1);
            if (members.containsKey(key)) throw new FormatException("bad JSON at character " + start + ": the key " + quote(key) + " appears twice");
            members.put(key, value);
            skipSpace();
        } while (take(','));
        expect('}');
        return members;
    }

    private List<Object> array(int depth) throws FormatException {
        var elements = new ArrayList<>();
        at++;
        skipSpace();
        if (take(']')) return elements;
        do {
            skipSpace();
            elements.add(value(depth + 1));
            skipSpace();
        } while (take(','));
        expect(']');
        return elements;
    }

    private String string() throws FormatException {
        var out = new StringBuilder();
        at++;
        while (true) {
            if (at >= text.length()) throw error("a string is not closed");
            char c = text.charAt(at++);
            if (c == '"') return out.toString();
            if (c < 0x20) throw error("a control character (U+%04X) must be escaped in a string".formatted((int) c));
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (at >= text.length()) throw error("a string is not closed");
            char escaped = text.charAt(at++);
            switch (escaped) {
                case '"', '\\', '/' -> out.append(escaped);
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> out.append(hex4());
                default -> throw error("unknown escape '\\" + escaped + "'");
            }
        }
    }

    private char hex4() throws FormatException {
        if (at + 4 > text.length()) throw error("a \\u escape needs four hex digits");
        int value = 0;
        for (int i = 0; i < 4; i++) {
            int digit = Character.digit(text.charAt(at++), 16);
            if (digit < 0) throw error("a \\u escape needs four hex digits");
            value = value * 16 + digit;
        }
        return (char) value;
    }

    // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
    private Object number() throws FormatException {
        int start = at;
        take('-');
        if (take('0')) {
            if (digits() > 0) throw error("a number has a leading zero");
        } else if (digits() == 0) throw error("a number needs a digit");
        boolean integer = true;
        if (take('.')) {
            integer = false;
            if (digits() == 0) throw error("a fraction needs a digit");
        }
        if (take('e') || take('E')) {
            integer = false;
            if (!take('+')) take('-');
            if (digits() == 0) throw error("an exponent needs a digit");
        }
        String literal = text.substring(start, at);
        if (!integer) return Double.parseDouble(literal);
        var value = new BigInteger(literal);
        if (value.bitLength() > 63) throw new FormatException("bad JSON at character " + start + ": the integer " + literal + " does not fit in 64 bits");
        return value.longValue();
    }

    private int digits() {
        int start = at;
        while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9') at++;
        return at - start;
    }

    private Object word(String word, Object value) throws FormatException {
        if (!text.startsWith(word, at)) throw error("unexpected character '" + text.charAt(at) + "'");
        at += word.length();
        return value;
    }

    private void skipSpace() {
        while (at < text.length() && " \t\n\r".indexOf(text.charAt(at)) >= 0) at++;
    }

    private boolean take(char c) {
        if (at < text.length() && text.charAt(at) == c) {
            at++;
            return true;
        }
        return false;
    }

    private void expect(char c) throws FormatException {
        if (!take(c)) throw error(at < text.length() ? "expected '" + c + "' but found '" + text.charAt(at) + "'" : "the text ends where '" + c + "' was expected");
    }

    private FormatException error(String message) { return new FormatException("bad JSON at character " + at + ": " + message); }
}
