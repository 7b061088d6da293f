// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

/// What an [Node.IndexCheck] asks of each element: an index in `0..limit-1`, or the error of the
/// user's operation `op`, which calls the index `what` (crossEntropy's `target`). One definition of
/// the check and its message for eager calls, compiled programs and the interpreter alike:
/// `target 10 at index 1 is out of range; expected 0..9`.
public record IndexBounds(String op, String what, int limit) {
    /// `op` and `what` are single words, as the IR's text form spells attributes; `limit` ≥ 0.
    public IndexBounds {
        Check.that(word(op) && word(what), "index bounds need a one-word op and what, not '%s' and '%s'", op, what);
        Check.that(limit >= 0, "index limit %d is negative", limit);
    }

    // `text` matches \S+; by hand: a regex compiles in the interpreter, and a training step's compile builds these
    private static boolean word(String text) {
        if (text == null || text.isEmpty()) return false;
        for (int i = 0; i < text.length(); i++) if (" \t\n\u000B\f\r".indexOf(text.charAt(i)) >= 0) return false; // regex's \s
        return true;
    }

    /// Whether `index` (a constant's value) passes the check.
    public boolean contains(double index) { return index >= 0 && index < limit; }

    /// Throws [IndexOutOfRange] for the first of `values` (row-major) outside `0..limit-1`.
    public void check(int[] values) {
        for (int i = 0; i < values.length; i++)
            if (values[i] < 0 | values[i] >= limit) throw outside(values[i], i); // both compares, one branch: the loop stays tight
    }

    // The failure for `value` found at row-major position `index` of the checked tensor.
    private IndexOutOfRange outside(int value, int index) {
        return new IndexOutOfRange(op, "%s %d at index %d is out of range; expected 0..%d".formatted(what, value, index, limit - 1));
    }

    @Override
    public String toString() { return "op=" + op + " what=" + what + " limit=" + limit; }
}
