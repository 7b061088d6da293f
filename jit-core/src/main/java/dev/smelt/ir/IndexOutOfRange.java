// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

/// An [Node.IndexCheck] failed: an index of the user's operation `op` is outside its range. The
/// message is the detail without the op (`target 10 at index 1 is out of range; expected 0..9`);
/// the API layer reports it as that op's `SmeltException`, from eager and compiled code alike.
public final class IndexOutOfRange extends RuntimeException {
    private final String op;

    IndexOutOfRange(String op, String detail) {
        super(detail, null, false, false); // reported again at the API boundary: no stack trace to fill
        this.op = op;
    }

    /// The operation whose index was out of range, such as `crossEntropy`.
    public String op() { return op; }
}
