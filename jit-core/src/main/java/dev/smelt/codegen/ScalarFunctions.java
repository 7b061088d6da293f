// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.*;

import dev.smelt.kernel.Expr;
import dev.smelt.kernel.KernelPrinter;
import dev.smelt.kernel.Rewrite;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;
import org.objectweb.asm.ClassWriter;

/// The scalar variant's rewritten transcendentals (each [Expr.Fallback]: `exp`, `log`, `tanh`,
/// `sin`, `cos` as `kernel.Transcendentals` writes them) as private static methods of the kernel
/// class, which the loops call:
/// ```
/// private static float sin0(float v0) { return Math.abs(v0) <= 125f ? <the steps on v0> : (float) Math.sin((double) v0); }
/// …
/// out0[line0 + j] = Math.max((sin0(in0[line0 + j]) * cos1(in1[line1 + j]) + …
/// ```
/// A fresh JVM interprets a kernel's loop until its on-stack replacement, tens of thousands of
/// points in, and a transcendental's ~150 bytecodes per point inline were most of that first run.
/// A method of its own C1 compiles after a few hundred calls, and from then on the interpreted loop
/// calls compiled code. The body is the same tree emitted by the same [ScalarEmitter], so the bits
/// are those the vector twin computes inline, which keeps its own tail loops inline too (C1 is kept
/// off vector classes, `runtime.VectorCodeDirective`, so a method of theirs would stay interpreted).
///
/// A method takes the [Expr.Var]s its tree reads but does not bind, in the order the tree reads them
/// (the argument, and for `log` the argument's bits, which the range test and the steps share),
/// renamed from 0 up, so that one function applied to two values of a kernel is one method.
final class ScalarFunctions {
    /// `name(descriptor)`, whose parameters are `body`'s free variables `v0`, `v1`, … in order.
    private record Function(String name, String descriptor, Expr.Fallback body, List<Expr.Var> parameters) {}

    private final String className;
    /// By the printed tree: a string's hash needs none of the bootstraps a fresh JVM's first kernel
    /// would pay for hashing an expression (a pattern switch, a record's `hashCode`).
    private final Map<String, Function> functions = new LinkedHashMap<>();

    ScalarFunctions(String className) { this.className = className; }

    // sin0(v3)   (each free variable of `fallback` loaded by `scalar`, then the call)
    void emitCall(Expr.Fallback fallback, ScalarEmitter scalar, Code code) {
        var free = freeVariables(fallback);
        var renamed = new HashMap<Expr.Var, Expr.Var>();
        for (var variable : free) renamed.put(variable, new Expr.Var(renamed.size(), variable.dtype()));
        var canonical = (Expr.Fallback) rename(fallback, renamed, free.size());
        var descriptor = new StringBuilder("(");
        for (var variable : free) descriptor.append(Code.scalarType(variable.dtype()).getDescriptor());
        descriptor.append(')').append(Code.scalarType(fallback.dtype()).getDescriptor());
        String key = descriptor + KernelPrinter.expression(canonical);
        var function = functions.get(key);
        if (function == null) {
            var parameters = new ArrayList<Expr.Var>();
            for (var variable : free) parameters.add(renamed.get(variable));
            function = new Function(fallback.op().name().toLowerCase(Locale.ROOT) + functions.size(), descriptor.toString(), canonical, parameters);
            functions.put(key, function);
        }
        for (var variable : free) scalar.emit(variable);
        code.mv.visitMethodInsn(INVOKESTATIC, className, function.name(), function.descriptor(), false);
    }

    /// Writes the methods the calls emitted so far need, each with its body inline.
    void write(ClassWriter writer) {
        for (var function : functions.values()) {
            var mv = writer.visitMethod(ACC_PRIVATE | ACC_STATIC, function.name(), function.descriptor(), null, null);
            mv.visitCode();
            var code = new Code(mv);
            var slots = new HashMap<Expr.Var, Integer>();
            int slot = 0;
            for (var parameter : function.parameters()) {
                slots.put(parameter, slot);
                slot += Code.scalarType(parameter.dtype()).getSize();
            }
            ScalarEmitter.ofFunction(code, slots, slot).emit(function.body());
            code.op(Code.scalarType(function.body().dtype()).getOpcode(IRETURN));
            mv.visitMaxs(0, 0);
            mv.visitEnd();
        }
    }

    // the variables `expr` reads outside the Lets in it that bind them, in the order of Expr.nodes
    private static List<Expr.Var> freeVariables(Expr expr) {
        var bound = new java.util.HashSet<Expr.Var>();
        var nodes = Expr.nodes(List.of(expr));
        for (Expr node : nodes) if (node instanceof Expr.Let let) bound.add(let.variable());
        var free = new ArrayList<Expr.Var>();
        for (Expr node : nodes) if (node instanceof Expr.Var variable && !bound.contains(variable) && !free.contains(variable)) free.add(variable);
        return free;
    }

    // `expr` with its free variables as `renamed` says and the ones its Lets bind numbered from `next` on
    private static Expr rename(Expr expr, Map<Expr.Var, Expr.Var> renamed, int next) {
        for (Expr node : Expr.nodes(List.of(expr)))
            if (node instanceof Expr.Let let) renamed.put(let.variable(), new Expr.Var(next++, let.variable().dtype()));
        return Rewrite.bottomUp(new Renaming(renamed)).apply(expr);
    }

    /// Each variable, and each Let's, as `renamed` says (a class, not a lambda: see `Expr.nodes`).
    private record Renaming(Map<Expr.Var, Expr.Var> renamed) implements BiFunction<Expr, Expr, Expr> {
        @Override
        public Expr apply(Expr original, Expr rebuilt) {
            if (rebuilt instanceof Expr.Var variable) return renamed.get(variable);
            if (rebuilt instanceof Expr.Let let) return new Expr.Let(renamed.get(let.variable()), let.value(), let.body());
            return rebuilt;
        }
    }
}
