// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelPrinter;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/// How a kernel's vector loops are shaped, and which of its loops stay scalar.
///
/// One lane count for the whole kernel: the preferred lane count of its widest dtype (16 on an
/// AVX-512 host for `f32`, 8 once an `f64` or a random draw, hashed in 64-bit lanes, appears). Every dtype then uses a species of that many
/// lanes, so masks convert between them with `VectorMask.cast` and values with `castShape(…, 0)`.
/// `bool` values are masks of the widest dtype's species ([#maskType]).
///
/// A loop runs scalar when its reduction is an arg-reduction or a floating-point product, when an
/// output does not move along the inner axis, or when a `bool` buffer needs a byte species of that
/// many lanes that does not exist (4 lanes = 32 bits): see the `whyScalar` methods. A loop over an
/// inner axis shorter than one vector has no vector part at all.
record VectorPlan(int lanes, DType maskType) {
    /// The plan for `kernel` with `lanes` lanes, or with the preferred count for 0 (tests emulate
    /// narrower hardware with 4 or 8); null when the widest dtype has no species of that many lanes.
    static VectorPlan of(Kernel kernel, int lanes) {
        var preferred = of(kernel);
        if (lanes == 0) return preferred; // the preferred shape has a species of every element type
        var plan = new VectorPlan(lanes, preferred.maskType());
        return plan.hasSpecies(plan.maskType()) ? plan : null;
    }

    static VectorPlan of(Kernel kernel) {
        var dtypes = EnumSet.noneOf(DType.class);
        for (var input : kernel.inputs()) dtypes.add(input.dtype());
        for (var reduction : kernel.reductions()) dtypes.add(reduction.dtype());
        for (Expr node : Expr.nodes(kernel.expressions())) {
            dtypes.add(node.dtype());
            if (node instanceof Expr.Index || node instanceof Expr.Random) dtypes.add(DType.I32);
        }
        DType widest = null; // the first of the widest, in dtype order
        for (DType dtype : dtypes) if (widest == null || dtype.bytes() > widest.bytes()) widest = dtype;
        if (widest == null) widest = DType.F32;
        // Kernel.laneBytes: a random draw hashes in 64-bit lanes (Randoms), as many as the kernel has: 16 of
        // them would need two LongVectors and conversions across shapes that C2 does not keep intrinsic.
        // FloatVector.SPECIES_PREFERRED.length() and the others, without initialising the vector
        // classes: scalar kernels ask too (RowExtent), and a fresh JVM took 20 ms for that.
        return new VectorPlan(VectorShape.preferredShape().vectorBitSize() / (kernel.laneBytes() * Byte.SIZE), widest);
    }

    /// The width of `dtype`'s species.
    int bits(DType dtype) { return lanes * dtype.bytes() * Byte.SIZE; }

    /// Whether the platform has a `dtype` species of [#lanes] lanes. (`VectorShape.forBitSize`
    /// answers sizes above the largest with the largest shape, hence the check of the length.)
    boolean hasSpecies(DType dtype) {
        try {
            return VectorSpecies.of(element(dtype), VectorShape.forBitSize(bits(dtype))).length() == lanes;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static Class<?> element(DType dtype) {
        return switch (dtype) {
            case BOOL -> byte.class;
            case I32 -> int.class;
            case F32 -> float.class;
            case F64 -> double.class;
        };
    }

    /// The generated class's `static final VectorSpecies` field for `dtype`.
    static String speciesField(DType dtype) { return "SPECIES_" + dtype.name(); }

    /// Whether `expr` has one value along the whole inner axis, so that vector code computes it
    /// once as a scalar and broadcasts it: loads with stride 0 there, constants, indices of other
    /// axes, finished reductions. Elements are read as vectors from their arrays, and shared values
    /// from their locals, whatever they hold.
    static boolean isUniform(Expr expr, LoopSpace space) {
        return switch (expr) {
            case Expr.Load load -> space.innerStride(load.input()) == 0;
            case Expr.Constant _, Expr.Accumulated _ -> true;
            case Expr.Index index -> space.axisOf().get(index.axis()) != space.inner();
            case Expr.Unary unary -> isUniform(unary.x(), space);
            case Expr.Binary binary -> isUniform(binary.left(), space) && isUniform(binary.right(), space);
            case Expr.Where where -> isUniform(where.condition(), space) && isUniform(where.ifTrue(), space) && isUniform(where.ifFalse(), space);
            case Expr.Cast cast -> isUniform(cast.x(), space);
            case Expr.Random random -> isUniform(random.position(), space); // the key is the same at every point
            case Expr.Gather gather -> space.innerStride(gather.input()) == 0 && isUniform(gather.index(), space);
            case Expr.Fma fma -> isUniform(fma.a(), space) && isUniform(fma.b(), space) && isUniform(fma.c(), space);
            case Expr.Bits bits -> isUniform(bits.x(), space);
            case Expr.Bitwise bitwise -> isUniform(bitwise.left(), space) && isUniform(bitwise.right(), space);
            case Expr.Fallback f -> isUniform(f.x(), space) && isUniform(f.inRange(), space) && isUniform(f.value(), space);
            case Expr.Let let -> isUniform(let.value(), space) && isUniform(let.body(), space);
            case Expr.Var _ -> true; // as uniform as its Let's value, which the Let asks (VectorEmitter knows the vector ones)
            case Expr.Shared _ -> false; // vector loops keep shared values as vectors, even uniform ones
            case Expr.Element _ -> false;
        };
    }

    /// Why reduction `k` folds in a scalar loop: empty when it has a vector main loop.
    List<String> whyScalar(Kernel kernel, LoopSpace space, int k) {
        var reduction = kernel.reductions().get(k);
        var op = reduction.op();
        String where = "r%d = %s(%s)".formatted(k, op, KernelPrinter.expression(reduction.value()));
        if (op.isArg()) return List.of(where + ": arg-reductions run scalar");
        if (op == ReduceOp.PROD && reduction.dtype().isFloating())
            return List.of(where + ": floating-point products run scalar in double (float lanes overflow where the reference does not)");
        String missing = missingSpecies(reduction.value(), space);
        return missing == null ? List.of() : List.of(where + ": " + missing);
    }

    /// Why full outputs `outputs` are written by a scalar loop, or an empty list for a vector loop.
    ///
    /// Only contiguous stores (stride 1 on the inner axis) are vectorised. Scatters are not used:
    /// C2 in JDK 25.0.3 (AVX-512) drops the stores of a `FloatVector`/`DoubleVector` scatter
    /// (`intoArray(a, offset, indexMap, 0)`) of a loop-invariant value once it compiles the loop,
    /// e.g. `for (j = 0; j < 32; j += 8) DoubleVector.broadcast(S, 2.0).intoArray(out, 2 + 3 * j, MAP, 0)`
    /// leaves `out` untouched after about 20 000 calls. Found by `VectorAccuracyTest`.
    List<String> whyScalar(Kernel kernel, LoopSpace space, List<Integer> outputs) {
        var reasons = new ArrayList<String>();
        for (int i : outputs) {
            var output = kernel.outputs().get(i);
            int stride = space.innerStride(kernel.inputs().size() + i);
            String where = "out" + i;
            if (stride == 0) reasons.add(where + ": writes one element for the whole inner axis");
            else if (stride != 1) reasons.add(where + ": strided stores (stride " + stride + ") run scalar, as C2 drops some scatters");
            else if (output.dtype() == DType.BOOL && !hasSpecies(DType.BOOL)) reasons.add(where + ": " + noSpecies(DType.BOOL));
            else if (missingSpecies(output.value(), space) != null) reasons.add(where + ": " + missingSpecies(output.value(), space));
        }
        if (!reasons.isEmpty() && outputs.size() > reasons.size()) reasons.add("the other outputs share their loop and run scalar too");
        return reasons;
    }

    /// Bool buffers read along the inner axis need a byte species of [#lanes] lanes. A gather needs
    /// one index for all lanes (then it reads them as a load does); an index per lane has no vector form.
    String missingSpecies(Expr expr, LoopSpace space) {
        var missing = new ArrayList<String>();
        Expr.walk(expr, node -> {
            if (node instanceof Expr.Gather gather && !isUniform(gather.index(), space))
                missing.add("a gather whose index varies along the inner axis reads lane by lane");
            if (node instanceof Expr.Load load && load.dtype() == DType.BOOL && !isUniform(load, space) && !hasSpecies(DType.BOOL))
                missing.add(noSpecies(DType.BOOL));
        });
        return missing.isEmpty() ? null : missing.getFirst();
    }

    private String noSpecies(DType dtype) { return "no %s species of %d lanes (%d bits)".formatted(dtype, lanes, bits(dtype)); }
}
