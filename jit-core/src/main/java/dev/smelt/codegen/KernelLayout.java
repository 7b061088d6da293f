// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.kernel.Expr;
import dev.smelt.kernel.Kernel;
import java.util.ArrayList;
import java.util.List;
import org.objectweb.asm.Type;

/// The local-variable slots of one generated method, assigned once from the kernel, so that no
/// emitter writes a slot number. Every method starts `(Object[] buffers, int start, int end, …)`;
/// `run` is an instance method, the helpers of a split kernel are static and take the element
/// arrays (which `run` allocates in the same slots) and the results of earlier reductions as
/// further parameters.
///
/// @param elements    for each reduction an [dev.smelt.kernel.Expr.Element] reads, its array of the
///                    row's values (`float[] element1`), indexed by the point's place in the row; -1 for the others
/// @param elementLine where the current line of the inner axis starts in the element arrays, for
///                    rows of more than one loop axis ([LoopSpace#rowHasLines])
/// @param arrays      each buffer's typed array (`float[] in0 = (float[]) buffers[0]`)
/// @param lines       each buffer's position at index 0 of the current line of the inner axis
/// @param axes        the index along each [LoopSpace] axis; the inner one is the loop counter `j`
/// @param accumulators each reduction's running value (for `argmax`/`argmin`: the best value), two
///                    slots wide whatever its type ([SumOrder#accumulator])
/// @param laneArrays  each reduction's array of lanes, where scalar code folds a sum the vector
///                    variant adds in lanes ([SumOrder])
/// @param bestIndices each arg-reduction's index of the best value
/// @param results     each reduction's finished value, read by [dev.smelt.kernel.Expr.Accumulated]
/// @param vectorAccumulators each reduction's lanes of partial results in a vector loop; in a
///                    [ColumnEmitter], each reduction's array of a tile's results
/// @param secondAccumulators a second set, for the odd vectors of a loop unrolled by two: two
///                    independent chains of adds (or max) run at twice the speed of one
/// @param candidate   the value a reduction folds at the current point, when an arg-reduction
///                    compares it or an element array keeps it
/// @param shared      each [dev.smelt.kernel.Expr.Shared] id's local (a scalar in scalar loops, a
///                    vector object in vector loops; two slots wide for a `double`)
/// @param firstTemp   where the vector emitter's temporaries start
/// @param accumulatorLine in a [ColumnEmitter] tile, minus the tile's first row, so that row `j`'s
///                    result is at `accumulatorLine + j` in each reduction's accumulator array
/// @param blockSums   each blocked column sum's `double` of its finished blocks ([SumOrder#blocked]),
///                    two slots wide (a [ColumnEmitter] keeps a tile's in the `laneArrays` slot)
record KernelLayout(int buffers, int start, int end, List<Integer> elements, int row, int rest, int innerEnd, int innerBound,
                    int elementLine, int accumulatorLine, List<Integer> arrays, List<Integer> lines, List<Integer> axes, List<Integer> accumulators,
                    List<Integer> bestIndices, List<Integer> results, List<Integer> vectorAccumulators,
                    List<Integer> secondAccumulators, List<Integer> laneArrays, List<Integer> blockSums, int candidate, List<Integer> shared, int firstTemp) {

    static KernelLayout of(Kernel kernel, LoopSpace space, boolean instance, int resultParameters) {
        var slots = new int[] {instance ? 1 : 0};
        int buffers = take(slots, 1), start = take(slots, 1), end = take(slots, 1);
        var reductions = kernel.reductions();
        var stored = LoopSpace.elements(kernel);
        var elements = new ArrayList<Integer>();
        for (int k = 0; k < reductions.size(); k++) elements.add(stored.get(k) ? take(slots, 1) : -1);
        var results = new ArrayList<Integer>();
        for (int k = 0; k < resultParameters; k++) results.add(take(slots, width(Code.scalarType(reductions.get(k).dtype()))));
        int row = take(slots, 1), rest = take(slots, 1), innerEnd = take(slots, 1), innerBound = take(slots, 1), elementLine = take(slots, 1);
        int accumulatorLine = take(slots, 1);
        var arrays = repeat(slots, kernel.bufferCount(), 1);
        var lines = repeat(slots, kernel.bufferCount(), 1);
        var axes = repeat(slots, space.rank(), 1);
        var accumulators = repeat(slots, reductions.size(), 2);
        var bestIndices = repeat(slots, reductions.size(), 1);
        for (int k = resultParameters; k < reductions.size(); k++) results.add(take(slots, width(Code.scalarType(reductions.get(k).dtype()))));
        var vectorAccumulators = repeat(slots, reductions.size(), 1);
        var secondAccumulators = repeat(slots, reductions.size(), 1);
        var laneArrays = repeat(slots, reductions.size(), 1);
        var blockSums = repeat(slots, reductions.size(), 2);
        int candidate = take(slots, 2);
        var shared = repeat(slots, sharedCount(kernel), 2);
        return new KernelLayout(buffers, start, end, List.copyOf(elements), row, rest, innerEnd, innerBound, elementLine, accumulatorLine, arrays, lines, axes,
                accumulators, bestIndices, List.copyOf(results), vectorAccumulators, secondAccumulators, laneArrays, blockSums, candidate, shared, slots[0]);
    }

    private static int sharedCount(Kernel kernel) {
        int count = 0;
        for (var shared : Expr.sharedValues(kernel.expressions())) count = Math.max(count, shared.id() + 1);
        return count;
    }

    int array(int buffer) { return arrays.get(buffer); }

    int line(int buffer) { return lines.get(buffer); }

    int axis(int axis) { return axes.get(axis); }

    private static int width(Type type) { return type.getSize(); }

    private static int take(int[] slots, int width) {
        int slot = slots[0];
        slots[0] += width;
        return slot;
    }

    private static List<Integer> repeat(int[] slots, int count, int width) {
        var list = new ArrayList<Integer>();
        for (int i = 0; i < count; i++) list.add(take(slots, width));
        return List.copyOf(list);
    }
}
