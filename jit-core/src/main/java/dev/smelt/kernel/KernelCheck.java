// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import java.util.List;
import java.util.ArrayList;

/// The invariants of a [Kernel], checked once when it is built so that generated code can trust
/// them: every load and store stays inside its buffer, dtypes agree, operators get the dtypes the
/// graph IR allows them (no `exp` of an `i32`, no arithmetic on `bool`), accumulators are defined
/// before use, and row outputs do not vary within a row. A reduction's [Expr.Element] is read only
/// where each point of the row is visited after that reduction folded it: in later reductions and
/// full outputs (an arg-reduction's values are not kept). A [Expr.Shared] id has one value.
final class KernelCheck {
    private KernelCheck() {}

    static void verify(Shape space, int reducedRank, List<Kernel.Input> inputs, List<Kernel.Reduction> reductions, List<Kernel.Output> outputs) {
        require(reducedRank >= 0 && reducedRank <= space.rank(), "reducedRank %d out of range for %s", reducedRank, space);
        require(reducedRank > 0 || reductions.isEmpty(), "a pointwise kernel has no reductions");
        require(!outputs.isEmpty(), "a kernel writes at least one output");
        for (var input : inputs) inBounds("input", input.map(), input.size(), space);
        // A gather reaches its map's positions moved by up to (limit - 1)·stride.
        var values = new ArrayList<Expr>();
        for (var reduction : reductions) values.add(reduction.value());
        for (var output : outputs) values.add(output.value());
        for (Expr node : Expr.nodes(values)) {
            if (node instanceof Expr.Gather g && g.input() >= 0 && g.input() < inputs.size() && g.stride() >= 0 && g.limit() > 0) {
                var map = inputs.get(g.input()).map();
                inBounds("gather", new IndexMap(Math.toIntExact(map.offset() + (long) (g.limit() - 1) * g.stride()), map.strides()), inputs.get(g.input()).size(), space);
            }
        }
        // One id, one value: generated code computes a shared value once and reads it wherever the id occurs.
        var shared = new java.util.HashMap<Integer, Expr>();
        int firstReduced = space.rank() - reducedRank;
        for (int k = 0; k < reductions.size(); k++) {
            var reduction = reductions.get(k);
            require(!reduction.op().isArg() || reducedRank == 1, "%s needs exactly one reduced axis", reduction.op());
            require(reduction.value().dtype() != DType.BOOL, "%s of bool", reduction.op());
            new Scope(inputs, reductions, k, false, firstReduced, space.rank(), shared).check(List.of(reduction.value()));
        }
        for (var output : outputs) {
            inBounds("output", output.map(), output.size(), space);
            require(!output.perRow() || reducedRank > 0, "row outputs need reduced axes");
            if (output.perRow())
                for (int axis = firstReduced; axis < space.rank(); axis++)
                    require(output.map().stride(axis) == 0, "row output %s moves along reduced axis %d", output.map(), axis);
        }
        for (boolean perRow : new boolean[] {false, true}) {
            var outputValues = new ArrayList<Expr>();
            for (var output : outputs) if (output.perRow() == perRow) outputValues.add(output.value());
            new Scope(inputs, reductions, reductions.size(), perRow, firstReduced, space.rank(), shared).check(outputValues);
        }
    }

    private static void inBounds(String role, IndexMap map, int size, Shape space) {
        require(map.rank() == space.rank(), "%s map %s has rank %d, the space %s has %d", role, map, map.rank(), space, space.rank());
        if (space.count() == 0) return;
        long low = map.offset(), high = map.offset();
        for (int axis = 0; axis < space.rank(); axis++) {
            long reach = (long) (space.dim(axis) - 1) * map.stride(axis);
            if (reach < 0) low += reach; else high += reach;
        }
        require(low >= 0 && high < size, "%s map %s reaches [%d, %d] of a buffer of %d over %s", role, map, low, high, size, space);
    }

    /// What an expression may refer to: inputs, the first `defined` accumulators and elements, and
    /// (in a row output) nothing that varies along the reduced axes, which start at `firstReduced`.
    private record Scope(List<Kernel.Input> inputs, List<Kernel.Reduction> reductions, int defined, boolean perRow, int firstReduced, int rank,
                         java.util.Map<Integer, Expr> shared) {
        /// Checks every node of `exprs`, each distinct node once.
        void check(List<Expr> exprs) {
            for (Expr node : Expr.nodes(exprs)) checkNode(node);
        }

        private void checkNode(Expr expr) {
            switch (expr) {
                case Expr.Load load -> load(load);
                case Expr.Gather gather -> {
                    load(new Expr.Load(gather.input(), gather.dtype()));
                    require(gather.stride() >= 0, "gather of input %d with negative stride %d", gather.input(), gather.stride());
                }
                case Expr.Constant _, Expr.Cast _, Expr.Fma _, Expr.Bits _, Expr.Bitwise _, Expr.Let _, Expr.Var _, Expr.Fallback _ -> { }
                case Expr.Random random -> require(invariant(random.keyHigh()) && invariant(random.keyLow()), "the key of %s varies over the space", random);
                case Expr.Shared s -> {
                    Expr known = shared.putIfAbsent(s.id(), s.value());
                    require(known == null || known == s.value() || known.equals(s.value()), "shared value t%d has two definitions", s.id());
                }
                case Expr.Index index -> require(index.axis() >= 0 && index.axis() < rank && !(perRow && index.axis() >= firstReduced), "index of axis %d", index.axis());
                case Expr.Unary unary -> {
                    var x = unary.x().dtype();
                    require(x.isFloating() || unary.op().acceptsIntegers() && x == DType.I32, "%s is not defined on %s", unary.op(), x);
                }
                case Expr.Binary binary -> {
                    var operands = binary.left().dtype();
                    require(operands.isFloating() || binary.op().isComparison() || binary.op().acceptsIntegers() && operands == DType.I32, "%s is not defined on %s", binary.op(), operands);
                }
                case Expr.Where where ->
                    require(where.condition().dtype() == DType.BOOL && where.ifTrue().dtype() == where.ifFalse().dtype(), "where needs a bool condition and equal branch dtypes");
                case Expr.Accumulated acc -> {
                    require(acc.reduction() >= 0 && acc.reduction() < defined, "accumulator %d used before it is complete", acc.reduction());
                    require(reductions.get(acc.reduction()).dtype() == acc.dtype(), "accumulator %d read as %s", acc.reduction(), acc.dtype());
                }
                case Expr.Element element -> {
                    int k = element.reduction();
                    require(!perRow && k >= 0 && k < defined, "element %d read outside a later reduction or full output", k);
                    require(!reductions.get(k).op().isArg(), "element %d of an arg-reduction", k);
                    require(reductions.get(k).value().dtype() == element.dtype(), "element %d read as %s", k, element.dtype());
                }
            }
        }

        /// Whether `expr` has one value at every point: code generation reads a key once per loop.
        private boolean invariant(Expr expr) {
            boolean[] invariant = {true};
            Expr.walk(expr, node -> invariant[0] &= switch (node) {
                case Expr.Load load -> load.input() < inputs.size() && inputs.get(load.input()).map().strides().stream().allMatch(stride -> stride == 0);
                case Expr.Index _, Expr.Accumulated _, Expr.Element _, Expr.Shared _, Expr.Random _, Expr.Gather _ -> false;
                case Expr.Constant _, Expr.Unary _, Expr.Binary _, Expr.Where _, Expr.Cast _, Expr.Fma _, Expr.Bits _, Expr.Bitwise _, Expr.Let _, Expr.Fallback _ -> true;
                case Expr.Var _ -> false; // conservatively: what it stands for is elsewhere
            });
            return invariant[0];
        }

        private void load(Expr.Load load) {
            require(load.input() >= 0 && load.input() < inputs.size(), "load of missing input %d", load.input());
            var input = inputs.get(load.input());
            require(input.dtype() == load.dtype(), "load %d as %s of a %s buffer", load.input(), load.dtype(), input.dtype());
            for (int axis = firstReduced; perRow && axis < rank; axis++)
                require(input.map().stride(axis) == 0, "row output loads input %d, which varies along reduced axis %d", load.input(), axis);
        }
    }

    private static void require(boolean condition, String format, Object... args) {
        if (!condition) throw new IllegalArgumentException("kernel: " + format.formatted(args));
    }
}
