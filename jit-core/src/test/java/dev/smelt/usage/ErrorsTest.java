// SPDX-License-Identifier: Apache-2.0
package dev.smelt.usage;

import static dev.smelt.usage.Rejects.rejects;

import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.Traced;
import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/// Bad input throws [SmeltException] naming the op, the offending shapes or values, and the
/// caller's line. This test lives outside `dev.smelt` so that it is the caller a user would be.
class ErrorsTest {
    private static final Tensor M = Tensor.zeros(2, 3);

    @Test
    void shapesThatDoNotBroadcast() {
        rejects("add", () -> M.add(Tensor.zeros(4)), "[2,3]", "[4]", "3 vs 4");
        rejects("lt", () -> Tensor.zeros(2, 1, 3).lt(Tensor.zeros(4, 2)), "[2,1,3]", "[4,2]");
        rejects("where", () -> Tensor.where(Tensor.zeros(DType.BOOL, 2), M, 0), "[2]", "[2,3]");
        rejects("allClose", () -> M.allClose(Tensor.zeros(3, 2)), "[2,3]", "[3,2]");
        rejects("expand", () -> M.expand(4, 3), "[2,3]", "[4,3]", "axis 0 has size 2");
        rejects("expand", () -> M.expand(3), "[2,3]", "fewer axes");
        rejects("expand", () -> Tensor.zeros(1, 3).expand(-2, 3), "[-2, 3]", "negative");
    }

    @Test
    void matmulShapesThatDoNotContract() {
        rejects("matmul", () -> M.matmul(Tensor.zeros(4, 5)), "[2,3]", "[4,5]", "3 columns", "4 rows");
        rejects("matmul", () -> Tensor.zeros(3).matmul(Tensor.zeros(4)), "[3]", "[4]");
        rejects("matmul", () -> Tensor.zeros(2, 3, 4).matmul(Tensor.zeros(3, 4, 5)), "[2]", "[3]");
        rejects("matmul", () -> Tensor.scalar(2).matmul(M), "[]", "[2,3]", "at least one axis");
    }

    @Test
    void dtypesAnOpDoesNotAccept() {
        rejects("matmul", () -> Tensor.zeros(DType.I32, 2, 2).matmul(Tensor.zeros(2, 2)), "i32", "f32");
        rejects("where", () -> Tensor.where(M, M, M), "condition must be bool, not f32");
        rejects("toIntArray", () -> M.toIntArray(), "f32", ".to(DType.I32)");
        rejects("toBooleanArray", () -> Tensor.zeros(DType.I32, 2).toBooleanArray(), "i32");
        rejects("rand", () -> Tensor.rand(new Generator(1), DType.I32, 2), "i32");
        rejects("crossEntropy", () -> M.crossEntropy(Tensor.zeros(DType.BOOL, 2)), "bool");
        rejects("add", () -> Tensor.zeros(DType.I32, 2).add(1L << 40), "1099511627776", "does not fit i32");
    }

    @Test
    void axesOutOfRangeOrRepeated() {
        rejects("sum", () -> M.sum(2), "axis 2", "rank 2");
        rejects("mean", () -> M.mean(-3), "axis -3", "rank 2");
        rejects("max", () -> M.max(0, 0), "axis 0 is given twice");
        rejects("permute", () -> M.permute(0), "[0]", "[2,3]");
        rejects("permute", () -> M.permute(1, -1), "axis -1 appears twice");
        rejects("transpose", () -> M.transpose(0, 5), "axis 5");
        rejects("transpose", () -> Tensor.zeros(3).t(), "[3]", "two axes");
        rejects("softmax", () -> M.softmax(2), "axis 2");
        rejects("argmax", () -> M.argmax(-3), "axis -3");
        rejects("dim", () -> M.dim(2), "axis 2");
        rejects("squeeze", () -> M.squeeze(1), "axis 1 of [2,3] has size 3");
        rejects("unsqueeze", () -> M.unsqueeze(4), "axis 4", "rank 3");
        rejects("flatten", () -> M.flatten(1, 0), "start axis 1", "end axis 0");
        rejects("concat", () -> Tensor.concat(2, M, M), "axis 2");
    }

    @Test
    void reshapesThatChangeTheElementCount() {
        rejects("reshape", () -> M.reshape(4), "[2,3]", "(6 elements)", "[4]", "(4 elements)");
        rejects("reshape", () -> M.reshape(4, -1), "[4, -1]", "[2,3]");
        rejects("reshape", () -> M.reshape(-1, -1), "invalid size -1");
        rejects("reshape", () -> Tensor.zeros(0, 3).reshape(0, -1), "cannot infer");
        rejects("reshape", () -> Tensor.zeros(4).reshape(65536, 65536), "[65536,65536]", "4294967296 elements", "Tensor.MAX_SIZE");
        rejects("of", () -> Tensor.of(new float[] {1, 2, 3}, 2, 2), "3 values", "[2,2]");
    }

    @Test
    void slicesOutOfRange() {
        var x = Tensor.arange(3);
        rejects("slice", () -> x.slice(0, 0, 5), "0:5:1", "[3]");
        rejects("slice", () -> x.slice(0, -4, 3), "-4:3:1", "[3]");
        rejects("slice", () -> x.slice(0, 0, 3, 0), "0:3:0", "step ≥ 1");
        rejects("slice", () -> x.slice(1, 0, 1), "axis 1", "rank 1");
        rejects("get", () -> M.get(0, 3), "index 3", "axis 1 of [2,3]");
        rejects("get", () -> M.get(0), "[0]", "[2,3]");
    }

    @Test
    void nullArguments() {
        rejects("add", () -> M.add((Tensor) null), "argument 1 is null");
        rejects("mul", () -> M.mul((Number) null), "argument 1 is null");
        rejects("matmul", () -> M.matmul(null), "argument 1 is null");
        rejects("where", () -> Tensor.where(null, M, M), "argument 0 is null");
        rejects("of", () -> Tensor.of((float[]) null), "data is null");
        rejects("of", () -> Tensor.of((boolean[]) null), "data is null");
        rejects("of", () -> Tensor.of(new int[] {1}, (int[]) null), "shape is null");
        rejects("full", () -> Tensor.zeros((DType) null, 2), "dtype is null");
        rejects("to", () -> M.to(null), "dtype is null");
        rejects("concat", () -> Tensor.concat(0, M, null), "argument 1 is null");
        rejects("concat", () -> Tensor.concat(null, 0), "list of tensors is null");
        rejects("reshape", () -> M.reshape((int[]) null), "argument 1 is null");
        rejects("sum", () -> M.sum((int[]) null), "argument 1 is null");
        rejects("allClose", () -> M.allClose(null), "argument 1 is null");
        rejects("crossEntropy", () -> M.crossEntropy(null), "argument 1 is null");
        rejects("rand", () -> Tensor.rand(null, 2), "argument 0 is null");
        rejects("trace", () -> Jit.trace(x -> x, (Tensor) null), "example 0 is null");
        rejects("trace", () -> Jit.trace(x -> null, M), "returned null as result 0");
    }

    @Test
    void readingValuesInsideATraceIsDataDependentControlFlow() {
        String[] why = {"traced tensor f32[2,3]", "Java control flow cannot depend on tensor values", "Tensor.where"};
        rejects("item", () -> Jit.trace(x -> x.sum().item() > 0 ? x : x.neg(), M), "traced tensor f32[]", "Tensor.where");
        rejects("get", () -> Jit.trace(x -> x.mul(x.get(0, 0)), M), why);
        rejects("toFloatArray", () -> Jit.trace(x -> Tensor.of(x.toFloatArray()), M), why);
        rejects("allClose", () -> Jit.trace(x -> x.allClose(M) ? x : M, M), why);
    }

    @Test
    void reductionsOverNothingWithoutAnIdentity() {
        rejects("max", () -> Tensor.zeros(2, 0).max(1), "axis 1 of [2,0]", "no elements");
        rejects("min", () -> Tensor.zeros(0).min(), "axis 0 of [0]");
        rejects("argmax", () -> Tensor.zeros(0).argmax(), "[0]");
        rejects("argmin", () -> Tensor.zeros(3, 0).argmin(1), "[3,0]");
        rejects("item", () -> M.item(), "[2,3]");
        rejects("var", () -> M.var(new int[] {0}, -1, false), "correction -1");
    }

    @Test
    void concatOfIncompatibleParts() {
        rejects("concat", () -> Tensor.concat(0, M, Tensor.zeros(2, 4)), "[2,3]", "[2,4]", "outside axis 0");
        rejects("concat", () -> Tensor.concat(0, M, Tensor.zeros(6)), "[2,3]", "[6]");
        rejects("concat", () -> Tensor.concat(List.of(), 0), "at least one");
        rejects("concat", () -> Tensor.concat(0, Tensor.scalar(1), Tensor.scalar(2)), "0-d");
    }

    @Test
    void factoriesWithImpossibleArguments() {
        rejects("full", () -> Tensor.zeros(2, -1), "[2, -1]", "negative");
        rejects("full", () -> Tensor.ones(65536, 65536), "[65536,65536]", "Tensor.MAX_SIZE = 2147483639");
        rejects("arange", () -> Tensor.arange(0, 5, 0), "by 0");
        rejects("arange", () -> Tensor.arange(0, 5, -1), "from 0.0 to 5.0 by -1.0");
        rejects("arange", () -> Tensor.arange(0, Double.POSITIVE_INFINITY, 1), "Infinity");
        rejects("linspace", () -> Tensor.linspace(0, 1, -1), "-1");
        rejects("randn", () -> Tensor.randn(new Generator(1), -2), "negative");
    }

    @Test
    void compositesCheckTheirOperands() {
        var logits = Tensor.zeros(2, 3);
        rejects("crossEntropy", () -> logits.crossEntropy(Tensor.of(new int[] {0, 3})), "target 3 at index 1", "0..2");
        rejects("crossEntropy", () -> logits.crossEntropy(Tensor.of(new int[] {-1, 0})), "target -1 at index 0");
        rejects("crossEntropy", () -> logits.crossEntropy(Tensor.of(new int[] {0, 1, 2})), "[2,3]", "[3]");
        rejects("crossEntropy", () -> logits.crossEntropy(Tensor.zeros(3, 2)), "[3,2]", "[2,3]");
        rejects("mseLoss", () -> Tensor.zeros(3).mseLoss(Tensor.zeros(2)), "[3]", "[2]");
        rejects("layerNorm", () -> logits.layerNorm(2), "[2]", "[2,3]", "trailing");
        rejects("layerNorm", () -> logits.layerNorm(new int[] {3}, Tensor.ones(2), null, 1e-5), "[3]", "[2]");
    }

    @Test
    void tracesUsedWrongly() {
        var leaked = new ArrayList<Tensor>();
        Jit.trace(x -> {
            leaked.add(x);
            return x;
        }, M);
        rejects("trace", () -> leaked.getFirst().add(1), "finished trace");
        rejects("trace", () -> Jit.trace(x -> Jit.trace(y -> y.add(x), M).graph() == null ? x : x, M), "another trace");
        var traced = Jit.trace(x -> x.add(1), Tensor.zeros(3));
        rejects("interpret", () -> traced.interpret(), "expected 1 arguments, got 0");
        rejects("interpret", () -> traced.interpret(Tensor.zeros(2)), "f32[3]", "f32[2]");
        rejects("interpret", () -> traced.interpret(Tensor.zeros(DType.F64, 3)), "f32[3]", "f64[3]");
        rejects("interpret", () -> traced.interpret((Tensor) null), "argument 0 is null");
        var graph = traced.graph();
        rejects("Traced", () -> new Traced(graph, 2, List.of()), "2 arguments and 0 captures", "1 inputs");
        rejects("Traced", () -> new Traced(graph, 0, List.of(M)), "capture 0 is f32[2,3]", "f32[3]");
    }

    @Test
    void compiledFunctionsNameTheArgumentThatIsWrong() {
        var compiled = Jit.compile((Tensor x) -> x.add(1));
        rejects("apply", () -> compiled.apply((Tensor) null), "argument 0 of compiled function is null");
        rejects("apply", () -> compiled.apply((Tensor[]) null), "array of arguments is null", "has 1 parameters");
        rejects("applyAll", () -> compiled.applyAll(M, M), "compiled function has 1 parameters, got 2 arguments");
        rejects("applyInto", () -> compiled.applyInto((Tensor) null, M), "output 0 is null");
        rejects("applyInto", () -> compiled.applyInto((List<Tensor>) null, M), "list of outputs is null");
        rejects("applyUpdating", () -> compiled.applyUpdating(Arrays.asList((Tensor) null), M), "output 0 is null");
        rejects("explain", () -> compiled.explain((Tensor) null), "argument 0 of compiled function is null");
        rejects("apply", () -> Jit.trace(x -> compiled.apply(x), M), "argument 0 of compiled function is a traced tensor");
        rejects("compile", () -> Jit.compile(arguments -> arguments, -1), "arity -1");
        rejects("dynamic", () -> compiled.dynamic(0, (int[]) null), "axes of argument 0 of compiled function are null");
        rejects("Jit.instance", () -> Jit.instance((java.lang.invoke.MethodHandles.Lookup) null, ErrorsTest.class), "lookup is null");
    }

    @Test
    void functionsThatReturnNullSayWhichResult() {
        rejects("trace", () -> Jit.compile((Tensor x) -> null).apply(M), "returned null as result 0 of 1");
        rejects("trace", () -> Jit.compile((x, y) -> null).apply(M, M), "returned null as result 0 of 1");
        rejects("trace", () -> Jit.compile(arguments -> Arrays.asList(arguments.get(0), null), 1).applyAll(M), "result 1 of 2");
        rejects("trace", () -> Jit.compile(arguments -> null, 1).apply(M), "returned null instead of a list");
        rejects("trace", () -> Jit.compile(arguments -> List.of(), 1).apply(M), "returned no tensors");
        rejects("trace", () -> Jit.trace((x, y, z) -> null, M, M, M), "returned null as result 0 of 1");
        rejects("trace", () -> Jit.compile(arguments -> List.of(arguments.get(1)), 1).apply(M), "reads argument 1, but it takes 1");
        rejects("trace", () -> Jit.trace(arguments -> List.of(arguments.get(-1)), List.of(M)), "reads argument -1");
    }

    @Test
    void scalarsOutsideTheirDomain() {
        rejects("allClose", () -> M.allClose(M, Double.NaN, 0, false), "rtol NaN");
        rejects("allClose", () -> M.allClose(M, 0, -1, false), "atol -1.0");
        rejects("layerNorm", () -> M.layerNorm(new int[] {3}, null, null, Double.NaN), "eps", "NaN");
        rejects("layerNorm", () -> M.layerNorm(new int[] {3}, null, null, -1e-5), "eps", "-1.0E-5");
        rejects("layerNorm", () -> M.layerNorm(new int[] {3}, null, null, Double.POSITIVE_INFINITY), "eps", "Infinity");
        rejects("layerNorm", () -> Jit.trace(x -> x.layerNorm(new int[] {3}, null, null, Double.NaN), M), "eps", "NaN");
        rejects("layerNorm", () -> M.layerNorm(-3), "[-3]", "negative");
        rejects("flatten", () -> Tensor.scalar(1).flatten(3, 4), "axis 3");
        rejects("sum", () -> Tensor.scalar(1).sum(1), "axis 1", "a 0-d tensor; expected 0 or -1");
        rejects("argmax", () -> Tensor.scalar(1).argmax(5), "axis 5");
    }
}
