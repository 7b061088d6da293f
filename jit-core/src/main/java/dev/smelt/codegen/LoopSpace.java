// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.kernel.ElementHome;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/// The loops a kernel runs: its iteration space with axes of size 1 dropped and neighbouring axes
/// merged wherever every buffer walks them as one (`stride[a] == stride[a+1] · dim[a+1]`), so a
/// contiguous `[64, 3, 5]` is one loop of 960. Merging keeps the row-major order of points, hence
/// row numbers and the order reductions fold in. Axes an [Expr.Index] reads are never merged, and
/// outer axes never merge with reduced ones.
///
/// Buffers are numbered as `run` takes them: inputs, then outputs. The last axis is the *inner*
/// axis, the one vector loops walk: the last reduced axis of a reduction, or the last axis of a
/// pointwise kernel (whose rows are its points). A group left without axes gets one of size 1.
///
/// @param dims       the merged axes, outer ones first
/// @param outerRank  how many of `dims` index rows; for a pointwise kernel, all of them
/// @param offsets    each buffer's offset
/// @param strides    each buffer's stride along each of `dims`
/// @param axisOf     for each axis of the kernel's space, the merged axis holding it, or -1 for a dropped axis of size 1
record LoopSpace(List<Integer> dims, int outerRank, List<Integer> offsets, List<List<Integer>> strides, List<Integer> axisOf) {
    static LoopSpace of(Kernel kernel) {
        int rank = kernel.space().rank();
        boolean pointwise = kernel.reducedRank() == 0;
        var maps = new ArrayList<IndexMap>();
        for (var input : kernel.inputs()) maps.add(input.map());
        for (var output : kernel.outputs()) maps.add(output.map());
        BitSet used = usedBuffers(kernel), indexed = indexedAxes(kernel);
        var builder = new Builder(kernel, maps, used, indexed);
        builder.group(0, pointwise ? rank : kernel.outerRank(), pointwise);
        int outerRank = builder.dims.size();
        if (!pointwise) builder.group(kernel.outerRank(), rank, true);
        var offsets = new ArrayList<Integer>();
        for (IndexMap map : maps) offsets.add(map.offset());
        var strides = new ArrayList<List<Integer>>();
        for (var buffer : builder.strides) strides.add(List.copyOf(buffer));
        var axisOf = new ArrayList<Integer>();
        for (int axis : builder.axisOf) axisOf.add(axis);
        return new LoopSpace(List.copyOf(builder.dims), outerRank, List.copyOf(offsets), List.copyOf(strides), List.copyOf(axisOf));
    }

    int rank() { return dims.size(); }

    int inner() { return dims.size() - 1; }

    int dim(int axis) { return dims.get(axis); }

    int stride(int buffer, int axis) { return strides.get(buffer).get(axis); }

    int innerStride(int buffer) { return stride(buffer, inner()); }

    private static final class Builder {
        final Kernel kernel;
        final List<IndexMap> maps;
        final BitSet used, indexed;
        final List<Integer> dims = new ArrayList<>();
        final List<List<Integer>> strides = new ArrayList<>();
        final int[] axisOf;
        final BitSet mergeable = new BitSet();   // merged axes that hold no indexed axis

        Builder(Kernel kernel, List<IndexMap> maps, BitSet used, BitSet indexed) {
            this.kernel = kernel;
            this.maps = maps;
            this.used = used;
            this.indexed = indexed;
            this.axisOf = new int[kernel.space().rank()];
            for (int b = 0; b < maps.size(); b++) strides.add(new ArrayList<>());
        }

        /// Adds the axes `from` until `to` as one group; `nonEmpty` adds an axis of size 1 if all drop.
        void group(int from, int to, boolean nonEmpty) {
            int first = dims.size();
            for (int axis = from; axis < to; axis++) {
                int dim = kernel.space().dim(axis);
                if (dim == 1) axisOf[axis] = -1;
                else if (dims.size() > first && canMerge(dims.size() - 1, axis)) merge(axis);
                else append(axis, dim);
            }
            if (nonEmpty && dims.size() == first) {
                dims.add(1);
                for (var list : strides) list.add(0);
            }
        }

        private boolean canMerge(int last, int axis) {
            if (!mergeable.get(last) || indexed.get(axis)) return false;
            int dim = kernel.space().dim(axis);
            for (int b = used.nextSetBit(0); b >= 0; b = used.nextSetBit(b + 1))
                if ((long) strides.get(b).get(last) != (long) maps.get(b).stride(axis) * dim) return false;
            return true;
        }

        private void merge(int axis) {
            int last = dims.size() - 1;
            dims.set(last, dims.get(last) * kernel.space().dim(axis));
            for (int b = 0; b < maps.size(); b++) strides.get(b).set(last, maps.get(b).stride(axis));
            axisOf[axis] = last;
        }

        private void append(int axis, int dim) {
            if (!indexed.get(axis)) mergeable.set(dims.size());
            axisOf[axis] = dims.size();
            dims.add(dim);
            for (int b = 0; b < maps.size(); b++) strides.get(b).add(maps.get(b).stride(axis));
        }
    }

    /// The buffers the kernel touches: every output, and the inputs some expression loads.
    private static BitSet usedBuffers(Kernel kernel) {
        var used = new BitSet();
        for (Expr expr : kernel.expressions()) used.or(loads(expr));
        used.set(kernel.inputs().size(), kernel.bufferCount());
        return used;
    }

    /// The reductions that keep each point's value in a row array: those an [Expr.Element] reads
    /// and whose values no output keeps ([ElementHome]).
    static BitSet elements(Kernel kernel) {
        var reductions = new BitSet();
        for (Expr node : Expr.nodes(kernel.expressions())) if (node instanceof Expr.Element element) reductions.set(element.reduction());
        for (int k = reductions.nextSetBit(0); k >= 0; k = reductions.nextSetBit(k + 1)) if (ElementHome.of(kernel, k) >= 0) reductions.clear(k);
        return reductions;
    }

    /// The buffers reduction `k`'s pass touches: the inputs its value loads, and the outputs that
    /// keep its own or an earlier reduction's elements ([ElementHome]).
    static BitSet reductionBuffers(Kernel kernel, int k) {
        var buffers = loads(kernel.reductions().get(k).value());
        for (int kept = 0; kept <= k; kept++) {
            int home = ElementHome.of(kernel, kept);
            if (home >= 0 && (kept == k || ElementHome.readsElement(kernel.reductions().get(k).value(), kept)))
                buffers.set(kernel.inputs().size() + home);
        }
        return buffers;
    }

    /// Whether a row is more than the inner axis, so that a point's place in the row's element
    /// arrays is `elementLine + j`, not `j`.
    boolean rowHasLines() { return rank() - outerRank > 1; }

    /// The stride of `axis` in the element arrays, which hold a row's points in loop order.
    int elementStride(int axis) {
        int stride = 1;
        for (int after = axis + 1; after < rank(); after++) stride *= dim(after);
        return stride;
    }

    /// The inputs `expr` loads.
    static BitSet loads(Expr expr) {
        var inputs = new BitSet();
        for (Expr node : Expr.nodes(List.of(expr))) {
            if (node instanceof Expr.Load load) inputs.set(load.input());
            if (node instanceof Expr.Gather gather) inputs.set(gather.input());
        }
        return inputs;
    }

    private static BitSet indexedAxes(Kernel kernel) {
        var axes = new BitSet();
        for (Expr node : Expr.nodes(kernel.expressions())) if (node instanceof Expr.Index index) axes.set(index.axis());
        return axes;
    }
}
