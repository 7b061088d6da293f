// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.DCMPG;
import static org.objectweb.asm.Opcodes.DCMPL;
import static org.objectweb.asm.Opcodes.FCMPG;
import static org.objectweb.asm.Opcodes.FCMPL;
import static org.objectweb.asm.Opcodes.IFEQ;
import static org.objectweb.asm.Opcodes.IFGE;
import static org.objectweb.asm.Opcodes.IFLE;
import static org.objectweb.asm.Opcodes.IFNE;
import static org.objectweb.asm.Opcodes.IF_ICMPGE;
import static org.objectweb.asm.Opcodes.IF_ICMPLE;

import dev.smelt.ir.ReduceOp;
import org.objectweb.asm.Type;

/// The scalar step of `argmax`/`argmin`: keeps the best value seen in a row and its index.
final class ArgUpdate {
    private ArgUpdate() {}

    /// ```
    /// if (j == 0 || best == best && (v != v || v > best)) { best = v; index = j; }
    /// ```
    /// where `v` is local `candidate` of `type`: NaN is the extreme and the first wins ties
    /// (`v < best` for argmin; plain comparisons for `int`).
    static void emit(Code code, int candidate, int j, ReduceOp op, Type type, int best, int index) {
        Runnable take = () -> {
            code.load(type, candidate);
            code.store(type, best);
            code.loadInt(j);
            code.storeInt(index);
        };
        boolean max = op == ReduceOp.ARGMAX;
        code.loadInt(j);
        code.ifElse(IFNE, take, () -> {
            if (type == Type.INT_TYPE) {
                code.load(type, candidate);
                code.load(type, best);
                code.ifThen(max ? IF_ICMPLE : IF_ICMPGE, take);
                return;
            }
            int compareLess = type == Type.FLOAT_TYPE ? FCMPL : DCMPL, compareGreater = type == Type.FLOAT_TYPE ? FCMPG : DCMPG;
            code.load(type, best);
            code.load(type, best);
            code.op(compareLess);
            code.ifThen(IFNE, () -> {
                code.load(type, candidate);
                code.load(type, candidate);
                code.op(compareLess);
                code.ifElse(IFEQ, take, () -> {
                    code.load(type, candidate);
                    code.load(type, best);
                    code.op(max ? compareLess : compareGreater);
                    code.ifThen(max ? IFLE : IFGE, take);
                });
            });
        });
    }
}
