// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.*;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.Kernel;
import java.util.Set;
import java.util.function.IntConsumer;
import java.util.List;
import org.objectweb.asm.Type;

/// Emits a kernel expression for [VectorPlan#lanes] consecutive points of the inner axis, starting
/// at `j`: one method per [Expr] kind, each leaving one vector of the expression's dtype on the
/// stack (`FloatVector` for `f32`), or for `bool` a `VectorMask` of the plan's mask species.
/// Parts that do not vary along the inner axis are computed by the [ScalarEmitter] and broadcast.
///
/// `+ - * /`, `sqrt`, `max`, `min`, comparisons, `where` and casts give the scalar result in every
/// lane; the unary operators and `pow` are in [VectorMath].
final class VectorEmitter {
    private final Kernel kernel;
    private final LoopSpace space;
    private final KernelLayout layout;
    private final VectorPlan plan;
    private final ScalarEmitter scalar;
    private final String className;
    private final Set<Integer> strideMaps;
    private final VectorMath math;
    private final List<Integer> rowResults;
    final Code code;
    /// The folds of reductions into vector accumulators.
    final VectorFolds folds;
    /// The temporaries of the [Expr.Let] variables in scope that hold vectors.
    private final java.util.Map<Expr.Var, Integer> variables = new java.util.HashMap<>();

    VectorEmitter(Code code, Kernel kernel, LoopSpace space, KernelLayout layout, VectorPlan plan, ScalarEmitter scalar,
                  String className, Set<Integer> strideMaps) {
        this(code, kernel, space, layout, plan, scalar, className, strideMaps, null);
    }

    /// With `rowResults`, the locals holding each reduction's array of results for a tile of rows
    /// (a [ColumnPlan]'s lanes are rows): [Expr.Accumulated] then varies across lanes and is read
    /// from there, at `accumulatorLine + j`. Without (null), it is one row's scalar result, broadcast.
    VectorEmitter(Code code, Kernel kernel, LoopSpace space, KernelLayout layout, VectorPlan plan, ScalarEmitter scalar,
                  String className, Set<Integer> strideMaps, List<Integer> rowResults) {
        this.rowResults = rowResults;
        this.code = code;
        this.kernel = kernel;
        this.space = space;
        this.layout = layout;
        this.plan = plan;
        this.scalar = scalar;
        this.className = className;
        this.strideMaps = strideMaps;
        this.math = new VectorMath(this);
        this.folds = new VectorFolds(this, kernel, scalar);
    }

    void emit(Expr expr) {
        if (expr instanceof Expr.Shared shared) {  // t<id>, a vector computed by computeShared
            code.load(Type.getType(Object.class), layout.shared().get(shared.id()));
            return;
        }
        if (expr instanceof Expr.Var variable && variables.containsKey(variable)) {  // v<id>, a vector bound by a Let
            loadTemp(variables.get(variable));
            return;
        }
        if (VectorPlan.isUniform(expr, space) && !readsRowResults(expr) && !readsVectors(expr)) {
            emitBroadcast(expr);
            return;
        }
        switch (expr) {
            case Expr.Load load -> emitLoad(load);
            case Expr.Constant _ -> emitBroadcast(expr);
            case Expr.Accumulated accumulated -> emitAccumulated(accumulated);
            case Expr.Index index -> emitIndex(index);
            case Expr.Unary unary -> math.emitUnary(unary);
            case Expr.Binary binary -> emitBinary(binary);
            case Expr.Where where -> emitWhere(where);
            case Expr.Cast cast -> emitCast(cast);
            case Expr.Element element -> emitElement(element);
            case Expr.Random random -> emitRandom(random);
            case Expr.Gather gather -> emitGather(gather);
            case Expr.Fma fma -> math.emitFma(fma);
            case Expr.Bits bits -> math.emitBits(bits);
            case Expr.Bitwise bitwise -> math.emitBitwise(bitwise);
            case Expr.Let let -> emitLet(let);
            case Expr.Fallback fallback -> math.emitFallback(fallback);
            case Expr.Shared _, Expr.Var _ -> throw new IllegalStateException("handled above");
        }
    }

    // FloatVector v<id> = <value>; <body reading v<id>>   (a uniform value is a scalar the body broadcasts)
    private void emitLet(Expr.Let let) {
        if (VectorPlan.isUniform(let.value(), space) && !readsRowResults(let.value()) && !readsVectors(let.value())) {
            scalar.emitLet(let, () -> emit(let.body()));
            return;
        }
        withOperand(let.value(), slot -> {
            Integer outer = variables.put(let.variable(), slot);
            emit(let.body());
            if (outer == null) variables.remove(let.variable()); else variables.put(let.variable(), outer);
        });
    }

    /// Whether `expr` reads a [Expr.Let] variable that holds a vector, so it is not uniform.
    private boolean readsVectors(Expr expr) {
        if (variables.isEmpty()) return false;
        boolean[] reads = {false};
        Expr.walk(expr, node -> reads[0] |= node instanceof Expr.Var variable && variables.containsKey(variable));
        return reads[0];
    }

    // FloatVector t0 = <value>; FloatVector t1 = <value reading t0>; …   before a vector loop body's stores
    void computeShared(List<Expr> exprs) {
        for (var shared : Expr.sharedValues(exprs)) {
            emit(shared.value());
            code.store(Type.getType(Object.class), layout.shared().get(shared.id()));
        }
    }

    // <value>.intoArray(out<i>, line + j)   (outputs with stride 1 only: see VectorPlan.whyScalar)
    // bool: ByteVector.zero(B).blend(ByteVector.broadcast(B, 1), <mask>.cast(B)).intoArray(…)
    void emitStore(int output) {
        int buffer = kernel.inputs().size() + output;
        var value = kernel.outputs().get(output).value();
        var dtype = value.dtype();
        if (dtype == DType.BOOL) {
            pushSpecies(DType.BOOL);
            VectorApi.BYTE.zero().invoke(code.mv);
            pushConstant(DType.BOOL, 1);
            emit(value);
            castMask(plan.maskType(), DType.BOOL);
            VectorApi.BYTE.blend().invoke(code.mv);
        } else {
            emit(value);
        }
        code.load(Type.getType(Object.class), layout.array(buffer));
        scalar.pushPosition(buffer);
        VectorApi.of(dtype).intoArray().invoke(code.mv);
    }

    // XVector.broadcast(SPECIES_X, <scalar value>)   /   bool: SPECIES_M.maskAll(<scalar value>)
    private void emitBroadcast(Expr expr) {
        boolean bool = expr.dtype() == DType.BOOL;
        pushSpecies(bool ? plan.maskType() : expr.dtype());
        scalar.emit(expr);
        (bool ? VectorApi.MASK_ALL : VectorApi.of(expr.dtype()).broadcast()).invoke(code.mv);
    }

    // FloatVector.fromArray(SPECIES_F32, in<i>, line + j)   /   gather: fromArray(…, line + j * s, STRIDE_s, 0)
    // bool: ByteVector.fromArray(SPECIES_BOOL, in<i>, line + j).compare(NE, 0).cast(SPECIES_M)
    private void emitLoad(Expr.Load load) {
        var methods = VectorApi.of(load.dtype());
        pushSpecies(load.dtype());
        code.load(Type.getType(Object.class), layout.array(load.input()));
        scalar.pushPosition(load.input());
        int stride = space.innerStride(load.input());
        if (stride == 1) methods.fromArray().invoke(code.mv);
        else {
            pushStrideMap(stride);
            methods.gather().invoke(code.mv);
        }
        if (load.dtype() == DType.BOOL) {
            compareScalar(DType.BOOL, VectorApi.NE, 0);
            castMask(DType.BOOL, plan.maskType());
        }
    }

    // FloatVector.fromArray(SPECIES_F32, in<i>, line + j + <index> * gatherStride)   (the index is one
    // scalar for the lanes, VectorPlan.missingSpecies: an embedding row read with vector loads)
    private void emitGather(Expr.Gather gather) {
        var methods = VectorApi.of(gather.dtype());
        pushSpecies(gather.dtype());
        code.load(Type.getType(Object.class), layout.array(gather.input()));
        scalar.pushGatherPosition(gather);
        int stride = space.innerStride(gather.input());
        if (stride == 1) methods.fromArray().invoke(code.mv);
        else {
            pushStrideMap(stride);
            methods.gather().invoke(code.mv);
        }
        if (gather.dtype() == DType.BOOL) {
            compareScalar(DType.BOOL, VectorApi.NE, 0);
            castMask(DType.BOOL, plan.maskType());
        }
    }

    // FloatVector.fromArray(SPECIES_F32, acc<k>, accumulatorLine + j): the results of LANES rows
    // XVector.broadcast(SPECIES_X, r<k>): one row's result
    private void emitAccumulated(Expr.Accumulated accumulated) {
        if (rowResults == null) {
            emitBroadcast(accumulated);
            return;
        }
        pushSpecies(accumulated.dtype());
        loadTemp(rowResults.get(accumulated.reduction()));
        pushRowResultPosition();
        VectorApi.of(accumulated.dtype()).fromArray().invoke(code.mv);
    }

    // accumulatorLine + j
    void pushRowResultPosition() {
        code.loadInt(layout.accumulatorLine());
        code.loadInt(layout.axis(space.inner()));
        code.op(IADD);
    }

    /// Whether `expr` reads a reduction's results held per lane, so it is not uniform.
    private boolean readsRowResults(Expr expr) {
        if (rowResults == null) return false;
        boolean[] reads = {false};
        Expr.walk(expr, node -> reads[0] |= node instanceof Expr.Accumulated);
        return reads[0];
    }

    // FloatVector.fromArray(SPECIES_F32, element<k>, elementLine + j)   (or out<i>, line<i> + j)
    private void emitElement(Expr.Element element) {
        pushSpecies(element.dtype());
        scalar.pushElementPlace(element.reduction());
        VectorApi.of(element.dtype()).fromArray().invoke(code.mv);
    }

    // IntVector.broadcast(SPECIES_I32, j).addIndex(1), converted to the index's dtype
    private void emitIndex(Expr.Index index) {
        pushSpecies(DType.I32);
        code.loadInt(layout.axis(space.inner()));
        VectorApi.INT.broadcast().invoke(code.mv);
        code.pushInt(1);
        VectorApi.ADD_INDEX.invoke(code.mv);
        convert(DType.I32, index.dtype());
    }

    // Randoms.uniform(SPECIES_F32, <positions>, <keyHigh>, <keyLow>)   (the key is one scalar for the loop)
    private void emitRandom(Expr.Random random) {
        pushSpecies(random.dtype());
        emit(random.position());
        scalar.emit(random.keyHigh());
        scalar.emit(random.keyLow());
        VectorApi.random(random.distribution(), random.dtype()).invoke(code.mv);
    }

    private void emitBinary(Expr.Binary binary) {
        var operands = binary.left().dtype();
        if (operands == DType.BOOL) { emitMaskComparison(binary); return; }
        var methods = VectorApi.of(operands);
        var op = binary.op();
        if (op == BinaryOp.POW) { math.emitPow(binary); return; }
        if (op.isComparison()) {
            emit(binary.left());                                       // a.compare(LT, b).cast(SPECIES_M)
            VectorApi.comparison(op).get(code.mv);
            emit(binary.right());
            methods.compare().invoke(code.mv);
            castMask(operands, plan.maskType());
            return;
        }
        emit(binary.left());
        emit(binary.right());
        (switch (op) {
            case ADD -> methods.add();                                 // a.lanewise(ADD, b)
            case SUB -> methods.sub();                                 // a.lanewise(SUB, b)
            case MUL -> methods.mul();                                 // a.lanewise(MUL, b)
            case DIV -> methods.div();                                 // a.lanewise(DIV, b)
            case MAXIMUM -> methods.max();                             // a.lanewise(MAX, b): NaN wins, -0 < +0, as Math.max
            case MINIMUM -> methods.min();                             // a.lanewise(MIN, b)
            case POW, EQ, NE, LT, LE, GT, GE -> throw new IllegalStateException("handled above");
        }).invoke(code.mv);
    }

    // masks a, b: eq → a.eq(b); ne → a.eq(b).not(); lt (¬a ∧ b) → b.andNot(a); le → a.andNot(b).not();
    // gt → a.andNot(b); ge → b.andNot(a).not()
    private void emitMaskComparison(Expr.Binary binary) {
        var op = binary.op();
        if (!op.isComparison()) throw new IllegalStateException(op + " of bool passed KernelCheck");
        emit(binary.left());
        emit(binary.right());
        if (op == BinaryOp.LT || op == BinaryOp.GE) code.op(SWAP);
        (op == BinaryOp.EQ || op == BinaryOp.NE ? VectorApi.MASK_EQ : VectorApi.MASK_AND_NOT).invoke(code.mv);
        if (op == BinaryOp.NE || op == BinaryOp.LE || op == BinaryOp.GE) VectorApi.MASK_NOT.invoke(code.mv);
    }

    // <ifFalse>.blend(<ifTrue>, <condition>.cast(SPECIES_X))   /   bool: t.and(c).or(f.andNot(c))
    private void emitWhere(Expr.Where where) {
        var dtype = where.dtype();
        if (dtype == DType.BOOL) {
            emit(where.ifTrue());
            withOperand(where.condition(), c -> {
                loadTemp(c);
                VectorApi.MASK_AND.invoke(code.mv);
                emit(where.ifFalse());
                loadTemp(c);
                VectorApi.MASK_AND_NOT.invoke(code.mv);
                VectorApi.MASK_OR.invoke(code.mv);
            });
            return;
        }
        emit(where.ifFalse());
        emit(where.ifTrue());
        emit(where.condition());
        castMask(plan.maskType(), dtype);
        VectorApi.of(dtype).blend().invoke(code.mv);
    }

    // x.castShape(SPECIES_Y, 0)  /  x.compare(NE, 0)  /  XVector.zero(S).blend(1, mask)
    private void emitCast(Expr.Cast cast) {
        emit(cast.x());
        convert(cast.x().dtype(), cast.dtype());
    }

    /// Converts the vector (or mask) on the stack from `from` to `to`, as Java casts do.
    private void convert(DType from, DType to) {
        if (from == to) return;
        if (to == DType.BOOL) {
            compareScalar(from, VectorApi.NE, 0);
            castMask(from, plan.maskType());
        } else if (from == DType.BOOL) {
            withTemp(mask -> {
                storeTemp(mask);
                pushSpecies(to);
                VectorApi.of(to).zero().invoke(code.mv);
                code.mv.visitLdcInsn(1L);
                loadTemp(mask);
                castMask(plan.maskType(), to);
                VectorApi.of(to).blendScalar().invoke(code.mv);
            });
        } else {
            pushSpecies(to);
            code.pushInt(0);
            VectorApi.of(from).castShape().invoke(code.mv);
            code.mv.visitTypeInsn(CHECKCAST, Type.getInternalName(VectorApi.of(to).vector()));
        }
    }

    /// Pushes the generated class's species for `dtype`.
    void pushSpecies(DType dtype) {
        code.mv.visitFieldInsn(GETSTATIC, className, VectorPlan.speciesField(dtype), "Ljdk/incubator/vector/VectorSpecies;");
    }

    // XVector.broadcast(SPECIES_X, value)
    void pushConstant(DType dtype, double value) {
        pushSpecies(dtype);
        code.pushConstant(dtype, dtype.round(value));
        VectorApi.of(dtype).broadcast().invoke(code.mv);
    }

    // STRIDE_s: {0, s, 2s, …}, the lane offsets of a gather with stride s
    private void pushStrideMap(int stride) {
        strideMaps.add(stride);
        code.mv.visitFieldInsn(GETSTATIC, className, strideMapField(stride), "[I");
        code.pushInt(0);
    }

    static String strideMapField(int stride) { return "STRIDE_" + (stride < 0 ? "MINUS_" + -(long) stride : String.valueOf(stride)); }

    // .compare(op, value)
    void compareScalar(DType dtype, FieldRef comparison, long value) {
        comparison.get(code.mv);
        code.mv.visitLdcInsn(value);
        VectorApi.of(dtype).compareScalar().invoke(code.mv);
    }

    // .cast(SPECIES_TO), when the species differ
    void castMask(DType from, DType to) {
        if (from == to) return;
        pushSpecies(to);
        VectorApi.MASK_CAST.invoke(code.mv);
    }

    // .lanewise(VectorOperators.EXP)
    void lanewise(DType dtype, UnaryOp op) {
        VectorApi.operator(op).get(code.mv);
        VectorApi.of(dtype).unary().invoke(code.mv);
    }

    /// Emits `x` into a fresh temporary, then `body` with its slot (an operand used more than once).
    void withOperand(Expr x, IntConsumer body) {
        emit(x);
        withTemp(slot -> {
            storeTemp(slot);
            body.accept(slot);
        });
    }

    /// Runs `body` with `slots` locals from the first free temporary on, which no temporary of the
    /// code `body` emits overlaps.
    void withTemps(int slots, IntConsumer body) { scalar.withTemps(slots, body); }

    void withTemp(IntConsumer body) { scalar.withTemps(1, body); }

    void loadTemp(int slot) { code.load(Type.getType(Object.class), slot); }

    void storeTemp(int slot) { code.store(Type.getType(Object.class), slot); }
}
