// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.UnaryOp;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/// The hooks graph-to-graph front ends (autograd) compile through: a transform of each signature's
/// trace, a graph compiled for its one signature, and results written back into their inputs.
class CompiledHooksTest {

    @Test
    void aTransformRewritesEachSignaturesTraceOnce() {
        var transforms = new AtomicInteger();
        // f(x) = exp(x), transformed to return exp(x) and exp(x)·x as well.
        var compiled = Jit.compile(args -> List.of(args.get(0).exp()), 1, traced -> {
            transforms.incrementAndGet();
            Graph graph = traced.graph();
            Node y = graph.outputs().getFirst();
            var outputs = new ArrayList<>(graph.outputs());
            outputs.add(new Node.Binary(BinaryOp.MUL, y, graph.inputs().getFirst()));
            return new Traced(new Graph(graph.inputs(), outputs), traced.arguments(), traced.captures());
        });
        var x = Tensor.of(new float[] {0, 1, 2});
        var results = compiled.applyAll(x);
        assertArrayEquals(x.exp().toFloatArray(), results.get(0).toFloatArray());
        assertArrayEquals(x.exp().mul(x).toFloatArray(), results.get(1).toFloatArray());
        compiled.applyAll(Tensor.of(new float[] {3, 4, 5}));
        assertEquals(1, transforms.get());
        compiled.applyAll(Tensor.ones(2));
        assertEquals(2, transforms.get());
        assertThrows(SmeltException.class, () -> Jit.compile(args -> args, 1, traced -> new Traced(traced.graph(), 0, List.of())).apply(x));
    }

    @Test
    void aGraphCompiledForItsSignatureRefusesOthers() {
        var x = new Node.Input(0, Shape.of(2), DType.F32);
        var compiled = Jit.compile(new Traced(new Graph(List.of(x), List.of(new Node.Unary(UnaryOp.NEG, x))), 1, List.of()));
        assertArrayEquals(new float[] {-1, 2}, compiled.apply(Tensor.of(new float[] {1, -2})).toFloatArray());
        var error = assertThrows(SmeltException.class, () -> compiled.apply(Tensor.ones(3)));
        assertTrue(error.getMessage().contains("f32[2]") && error.getMessage().contains("f32[3]"), error.getMessage());
        assertTrue(compiled.explain().contains("neg"));
    }

    @Test
    void applyUpdatingWritesResultsIntoTheirOwnInputsAfterTheProgramRan() {
        Tensor weight = Tensor.of(new float[] {1, 2, 3});
        // new weight = w - 0.5·Σw, and the old Σw: every kernel must read the old w.
        var update = Jit.compile(args -> List.of(weight.sub(weight.sum().mul(0.5)).add(args.get(0)), weight.sum()), 1);
        Tensor total = Tensor.zeros();
        update.applyUpdating(List.of(weight, total), Tensor.zeros(3));
        assertArrayEquals(new float[] {-2, -1, 0}, weight.toFloatArray());
        assertEquals(6, total.item());
        assertThrows(SmeltException.class, () -> update.applyInto(List.of(weight, total), Tensor.zeros(3)));
    }
}
