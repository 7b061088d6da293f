// SPDX-License-Identifier: Apache-2.0
package dev.smelt.io;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/// The Python literals a `.npy` header is written in: a dict of quoted keys whose values are
/// strings, `True`/`False`/`None`, integers (Python 2's `3L` too) and tuples or lists of them.
/// Strings become `String`, integers `Long`, tuples and lists `List`, dicts `Map`. Anything else,
/// including escapes inside strings (no header NumPy writes has one), is refused.
final class PythonLiteral {
    private final String text;
    private int at;

    private PythonLiteral(String text) { this.text = text; }

    /// The dict `text` holds, followed by nothing but spaces and the closing newline.
    static Map<String, Object> dict(String text) throws FormatException {
        var literal = new PythonLiteral(text);
        literal.skipSpace();
        if (!literal.peek('{')) throw literal.error("the header is not a dict literal");
        Object value = literal.value(0);
        literal.skipSpace();
        if (literal.at != text.length()) throw literal.error("unexpected text after the dict");
        @SuppressWarnings("unchecked") var dict = (Map<String, Object>) value;
        return dict;
    }

    private Object value(int depth) throws FormatException {
        if (depth > 8) throw error("nested too deep");
        skipSpace();
        if (at >= text.length()) throw error("the header ends where a value was expected");
        char c = text.charAt(at);
        if (c == '{') return dict(depth);
        if (c == '(') return sequence(')', depth);
        if (c == '[') return sequence(']', depth);
        if (c == '\'' || c == '"') return string(c);
        if (c == '-' || Character.isDigit(c)) return integer();
        for (var word : new String[] {"True", "False", "None"})
            if (text.startsWith(word, at)) {
                at += word.length();
                return word.equals("None") ? null : word.equals("True");
            }
        throw error("unexpected character '" + c + "'");
    }

    private Map<String, Object> dict(int depth) throws FormatException {
        var dict = new LinkedHashMap<String, Object>();
        at++;
        while (true) {
            skipSpace();
            if (take('}')) return dict;
            if (!(value(depth + 1) instanceof String key)) throw error("a dict key is not a string");
            skipSpace();
            if (!take(':')) throw error("expected ':' after the key '" + key + "'");
            if (dict.containsKey(key)) throw error("the key '" + key + "' appears twice");
            dict.put(key, value(depth + 1));
            skipSpace();
            if (!take(',') && !peek('}')) throw error("expected ',' or '}'");
        }
    }

    // A tuple or list; a trailing comma is allowed, as `(3,)` needs one.
    private List<Object> sequence(char close, int depth) throws FormatException {
        var elements = new ArrayList<>();
        at++;
        while (true) {
            skipSpace();
            if (take(close)) return elements;
            elements.add(value(depth + 1));
            skipSpace();
            if (!take(',') && !peek(close)) throw error("expected ',' or '" + close + "'");
        }
    }

    private String string(char quote) throws FormatException {
        int start = ++at;
        while (at < text.length() && text.charAt(at) != quote) {
            if (text.charAt(at) == '\\') throw error("escapes in strings are not supported");
            at++;
        }
        if (at >= text.length()) throw error("a string is not closed");
        return text.substring(start, at++);
    }

    private Long integer() throws FormatException {
        int start = at;
        take('-');
        while (at < text.length() && Character.isDigit(text.charAt(at))) at++;
        String digits = text.substring(start, at);
        take('L');
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw error("'" + digits + "' is not a 64-bit integer");
        }
    }

    private void skipSpace() {
        while (at < text.length() && " \t\n\r".indexOf(text.charAt(at)) >= 0) at++;
    }

    private boolean peek(char c) { return at < text.length() && text.charAt(at) == c; }

    private boolean take(char c) {
        if (!peek(c)) return false;
        at++;
        return true;
    }

    private FormatException error(String message) { return new FormatException("bad header at character " + at + ": " + message); }
}
