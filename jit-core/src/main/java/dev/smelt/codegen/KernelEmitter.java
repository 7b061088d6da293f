// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelPrinter;
import dev.smelt.kernel.Transcendentals;
import java.util.List;

/// Compiles a [Kernel] to a class file implementing [dev.smelt.kernel.KernelFunction].
///
/// For a softmax over rows of 1027, `kernel [R,1027] reduce 1 { in0: f32 …; r0 = max(in0);
/// r1 = sum(exp(sub(in0, r0))); out0 = div(e1, r1) }` (lowering has replaced the output's second
/// `exp(sub(in0, r0))` by `e1`, the value `r1` folds at the point), the [Variant#VECTOR] class on
/// an AVX-512 host is, as Java:
/// ```
/// public final class VectorKernel$3f1c… implements KernelFunction {        // SourceFile kernel-3f1c….ir
///     private static final VectorSpecies<Float> SPECIES_F32 = VectorSpecies.of(float.class, VectorShape.forBitSize(512));
///     …                                                     // one species of 16 lanes per dtype
///     public void run(Object[] buffers, int start, int end) {
///         float[] in0 = (float[]) buffers[0], out0 = (float[]) buffers[1];
///         for (int row = start; row < end; row++) {
///             int i0 = row;                                  // the row's outer indices
///             int line0 = 0 + i0 * 1027;                     // where each buffer's row starts
///             float acc0 = Float.NEGATIVE_INFINITY;          // line 3 of the .ir: r0 = max(in0)
///             FloatVector lanes0 = FloatVector.broadcast(SPECIES_F32, Float.NEGATIVE_INFINITY);
///             int j = 0, innerEnd = 1027, innerBound = j + SPECIES_F32.loopBound(innerEnd - j);
///             for (; j < innerBound; j += 16) lanes0 = lanes0.max(FloatVector.fromArray(SPECIES_F32, in0, line0 + j));
///             for (; j < innerEnd; j++) acc0 = Math.max(acc0, in0[line0 + j]);    // the scalar tail
///             float r0 = Math.max(acc0, lanes0.reduceLanes(MAX));
///             double acc1 = 0;                               // r1 = sum(…): f32 sums add in double
///             FloatVector lanes1 = FloatVector.broadcast(SPECIES_F32, 0f);
///             for (j = 0; j < innerBound; j += 16) {         // the same loops, keeping each value
///                 FloatVector v = exp(FloatVector.fromArray(SPECIES_F32, in0, line0 + j).sub(FloatVector.broadcast(SPECIES_F32, r0))); // inline: Transcendentals
///                 v.intoArray(out0, line0 + j);              // in out0's row, which keeps e1
///                 lanes1 = lanes1.add(v);
///             }
///             for (; j < innerEnd; j++) {
///                 float candidate = exp(in0[line0 + j] - r0);   // the same steps on one float
///                 out0[line0 + j] = candidate;
///                 acc1 += candidate;
///             }
///             float r1 = (float) (acc1 + total(lanes1.add(second1)));  // second1: the other chain of the loop unrolled
///                                                            // by two; total: the lanes halved with shuffles, in one fixed order (SumOrder)
///             for (j = 0; j < innerBound; j += 16)           // out0 = div(e1, r1), in place, in cache
///                 FloatVector.fromArray(SPECIES_F32, out0, line0 + j).div(FloatVector.broadcast(SPECIES_F32, r1)).intoArray(out0, line0 + j);
///             for (; j < innerEnd; j++) out0[line0 + j] = out0[line0 + j] / r1;
///         }
///     }
/// }
/// ```
/// What a reduction folds at each point is kept for the [dev.smelt.kernel.Expr.Element]s that
/// read it back: in the row of the one output that reads it, when that output is dense and of its
/// dtype ([dev.smelt.kernel.ElementHome]); otherwise in an element array, which holds a row's
/// points in loop order, is allocated once per `run`, and where in a row of several loop axes a
/// point's place is `elementLine + j`.
///
/// A pointwise kernel walks its points in segments along the inner axis instead of rows (see
/// [LoopEmitter#points]); [LoopSpace] merges axes first, so a contiguous kernel is one segment.
/// Buffer `b`'s element at a point is `line<b> + j * stride`: `fromArray` for stride 1, a broadcast
/// of one scalar for stride 0, a gather with a constant index map (`STRIDE_s`) otherwise.
///
/// [Variant#SCALAR] is the same class without the vector loops, and computes the bits the vector
/// variant does, so that a [dev.smelt.runtime.TieredKernel] may switch between them: both emit the
/// kernel as [Transcendentals] rewrites it, so `f32` `exp`, `log`, `tanh`, `sin` and `cos` are one
/// tree of steps in both (the scalar class's in static methods its loops call, [ScalarFunctions],
/// which C1 compiles long before the loop's own on-stack replacement); the other transcendentals go through `Math` in both ([Lanes]), and each floating-point sum in the vector loop's order ([SumOrder]). Both differ from
/// the `KernelInterpreter` within each operator's documented bound (`testing/Tolerance`) and a sum's
/// reassociation bound (`n·u·Σ|x|`). [VectorPlan] says which loops stay scalar;
/// [GeneratedKernel#scalarFallbacks] lists them.
///
/// An output may share its array with an input only element for element (an in-place update at
/// the same positions): each point's outputs are written in order, as the interpreter does, but a
/// vector loop reads a whole vector of points before it writes them.
///
/// A reduction over strided axes whose neighbouring rows are contiguous (`sum(x, 0)`) runs LANES
/// rows at once instead, one lane per row: [ColumnPlan], [ColumnEmitter]. Such a `run` is not split;
/// over the limit, the kernel has no vector variant (row loops would add in another order than the
/// scalar twin, which adds each row in sequence as the column lanes do).
///
/// A method over [#METHOD_LIMIT] bytes is first split: `run` then calls one static helper per
/// reduction and per output, passing them the element arrays ([KernelClass]). If a helper is still
/// too large the kernel is rejected with [KernelTooLargeException].
public final class KernelEmitter {
    /// Hidden classes are defined in their lookup class's package (`Lookup.defineHiddenClass`), and
    /// the runtime's `KernelLoader` is the lookup.
    static final String PACKAGE = "dev/smelt/runtime";

    /// HotSpot does not compile a method over 8000 bytes of bytecode (`HugeMethodLimit`); keep a margin.
    static final int METHOD_LIMIT = 7900;

    private KernelEmitter() {}

    public static GeneratedKernel emit(Kernel kernel, Variant variant) { return emit(kernel, variant, 0); }

    /// [#emit] with vectors of `lanes` lanes instead of the preferred count, for tests.
    static GeneratedKernel emit(Kernel kernel, Variant variant, int lanes) {
        String text = KernelPrinter.print(kernel);
        // vector classes apart by prefix, for the JIT directive that keeps C1 off them (runtime.VectorCodeDirective)
        String className = PACKAGE + (variant == Variant.SCALAR ? "/Kernel$" + hash(text) + "$Scalar" : "/VectorKernel$" + hash(text));
        String sourceFile = "kernel-" + hash(text) + ".ir";
        var space = LoopSpace.of(kernel);
        // the scalar class needs the vector plan only to add its floating-point sums in the same order
        // (SumOrder); without them it does not touch the Vector API, which a fresh JVM pays for
        var twin = variant == Variant.VECTOR || SumOrder.matters(kernel) ? VectorPlan.of(kernel, lanes) : null;
        var plan = variant == Variant.VECTOR ? twin : null;
        var columns = ColumnPlan.of(kernel, space, twin);
        var order = SumOrder.of(twin, columns);
        // the plans above are the kernel's as lowered (the rewrite adds i32 steps, which change no
        // lane count but would make i32 the mask type); the classes compute its rewritten form
        var rewritten = Transcendentals.expand(kernel);
        KernelClass.Written written;
        if (plan != null && columns != null) {
            // no row loops instead: the scalar twin adds up each row in sequence, as the column lanes do
            written = new KernelClass(rewritten, space, variant, plan, order, columns, className, false).write(sourceFile);
        } else {
            written = new KernelClass(rewritten, space, variant, plan, order, null, className, false).write(sourceFile);
            if (written.largestSize() > METHOD_LIMIT) written = new KernelClass(rewritten, space, variant, plan, order, null, className, true).write(sourceFile);
        }
        if (written.largestSize() > METHOD_LIMIT) throw new KernelTooLargeException(written.largest(), written.largestSize(), METHOD_LIMIT);
        var fallbacks = variant == Variant.VECTOR && plan == null ? List.of("every loop: no vector species of %d lanes for this kernel's widest dtype".formatted(lanes)) : written.fallbacks();
        return new GeneratedKernel(className.replace('/', '.'), written.bytes(), written.runSize(), variant, fallbacks, text);
    }

    /// How many rows the [Variant#VECTOR] class of `kernel` needs before its vector loops run at
    /// all: a vector's lanes for a column reduction, whose lanes are rows ([ColumnPlan]); one row
    /// otherwise, whose vector loops run along the row. Fewer rows run only the scalar rows left
    /// over, so a warm-up timing them would compare scalar code with scalar code. Loads the Vector API.
    public static int vectorRows(Kernel kernel) {
        var plan = VectorPlan.of(kernel, 0);
        return ColumnPlan.across(kernel, plan) ? plan.lanes() : 1;
    }

    /// About how many loop iterations (the JIT's back edges) one call of the [Variant#VECTOR] class
    /// of `kernel` makes over `rows` rows: a step per vector of lanes in each pass over a row (its
    /// reductions' passes and the outputs'), plus the row loop's own; a pointwise kernel's rows are
    /// its points, a column reduction's lanes its rows.
    public static long backEdges(Kernel kernel, int rows) {
        var plan = VectorPlan.of(kernel, 0);
        int lanes = plan.lanes(), passes = kernel.reductionPasses().size() + 1;
        if (kernel.reducedRank() == 0) return rows / lanes + 1;
        if (ColumnPlan.across(kernel, plan)) return (long) ((rows + lanes - 1) / lanes) * passes * kernel.rowLength();
        return (long) rows * (passes * (kernel.rowLength() / lanes + 1) + 1);
    }

    /// 64-bit FNV-1a of `text` as 16 hex digits: stable across runs, for class and dump names.
    /// Not SHA-256: a `MessageDigest` initialises the security providers, which costs a cold JVM
    /// tens of milliseconds on the first compile, and names need no cryptographic strength (hidden
    /// classes are unique whatever their name).
    static String hash(String text) {
        long hash = 0xcbf29ce484222325L;
        for (int i = 0; i < text.length(); i++) hash = (hash ^ text.charAt(i)) * 0x100000001b3L;
        String hex = Long.toHexString(hash);
        return "0".repeat(16 - hex.length()) + hex;
    }
}
