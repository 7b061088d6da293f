// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.*;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.ElementHome;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.Kernel;
import java.util.List;
import org.objectweb.asm.Type;

/// Emits a kernel expression's value at the current point of the loops: one method per [Expr] kind,
/// each leaving one value of [Code#scalarType] on the stack. The arithmetic is the vector twin's,
/// value by value, so a tiered kernel gives the same bits whichever variant runs: `f32` operators
/// that IEEE rounds exactly (`+ - * /`, `sqrt`, `max`) and the steps of a rewritten `exp`, `log`,
/// `tanh`, `sin` or `cos` (`kernel.Transcendentals`: FMAs, bits, shifts; [ScalarMath]) run in `float` and `int`;
/// the other transcendentals widen to double, call `Math` and round once
/// (`(float) Math.log1p((double) x)`), as [Lanes] does in vector kernels.
///
/// The current point is `line<b> + j * stride` in buffer `b`, where `j` is the inner axis's counter.
final class ScalarEmitter {
    private final Code code;
    private final Kernel kernel;
    private final LoopSpace space;
    private final KernelLayout layout;
    /// The [RowValues] computed before the current loop, and their locals.
    private final java.util.Map<Expr, Integer> rowValues = new java.util.HashMap<>();
    /// The locals of the [Expr.Let] variables in scope.
    private final java.util.Map<Expr.Var, Integer> variables = new java.util.HashMap<>();
    /// Temporaries in use from `firstTemp` on ([KernelLayout#firstTemp] in a kernel's method).
    private int temps;
    private final int firstTemp;
    private final ScalarMath math;
    /// Where the scalar variant's transcendentals are methods the loops call; null to emit them inline.
    private final ScalarFunctions functions;

    ScalarEmitter(Code code, Kernel kernel, LoopSpace space, KernelLayout layout) { this(code, kernel, space, layout, null); }

    ScalarEmitter(Code code, Kernel kernel, LoopSpace space, KernelLayout layout, ScalarFunctions functions) {
        this(code, kernel, space, layout, functions, layout.firstTemp());
    }

    private ScalarEmitter(Code code, Kernel kernel, LoopSpace space, KernelLayout layout, ScalarFunctions functions, int firstTemp) {
        this.code = code;
        this.kernel = kernel;
        this.space = space;
        this.layout = layout;
        this.functions = functions;
        this.firstTemp = firstTemp;
        this.math = new ScalarMath(this, code);
    }

    /// An emitter for the body of a [ScalarFunctions] method, which reads only `parameters` (in
    /// their slots) and the variables it binds itself (in temporaries from `firstTemp` on).
    static ScalarEmitter ofFunction(Code code, java.util.Map<Expr.Var, Integer> parameters, int firstTemp) {
        var emitter = new ScalarEmitter(code, null, null, null, null, firstTemp);
        emitter.variables.putAll(parameters);
        return emitter;
    }

    void emit(Expr expr) {
        var rowValue = rowValues.get(expr);
        if (rowValue != null) {  // row<n>, computed before the loop
            code.load(Code.scalarType(expr.dtype()), rowValue);
            return;
        }
        switch (expr) {
            case Expr.Load load -> emitLoad(load);
            case Expr.Constant constant -> emitConstant(constant);
            case Expr.Index index -> emitIndex(index);
            case Expr.Unary unary -> emitUnary(unary);
            case Expr.Binary binary -> emitBinary(binary);
            case Expr.Where where -> emitWhere(where);
            case Expr.Cast cast -> emitCast(cast);
            case Expr.Random random -> emitRandom(random);
            case Expr.Gather gather -> emitGather(gather);
            case Expr.Accumulated accumulated -> emitAccumulated(accumulated);
            case Expr.Element element -> emitElement(element);
            case Expr.Shared shared -> code.load(Code.scalarType(shared.dtype()), layout.shared().get(shared.id()));  // t<id>
            case Expr.Fma fma -> math.emitFma(fma);
            case Expr.Bits bits -> math.emitBits(bits);
            case Expr.Bitwise bitwise -> math.emitBitwise(bitwise);
            case Expr.Let let -> emitLet(let, () -> emit(let.body()));
            case Expr.Var variable -> code.load(Code.scalarType(variable.dtype()), variables.get(variable));  // v<id>
            case Expr.Fallback fallback -> {
                if (functions != null) functions.emitCall(fallback, this, code);
                else math.emitFallback(fallback);
            }
        }
    }

    /// Runs `body` with `slots` locals from the first free temporary on, which no temporary of the
    /// code `body` emits overlaps. The vector emitter takes its temporaries here too.
    void withTemps(int slots, java.util.function.IntConsumer body) {
        int first = firstTemp + temps;
        temps += slots;
        body.accept(first);
        temps -= slots;
    }

    // float v<id> = <value>; <body reading v<id>>   (the vector emitter's body reads a scalar one broadcast)
    void emitLet(Expr.Let let, Runnable body) {
        emit(let.value());
        withTemps(2, slot -> {
            code.store(Code.scalarType(let.value().dtype()), slot);
            Integer outer = variables.put(let.variable(), slot);
            body.run();
            if (outer == null) variables.remove(let.variable()); else variables.put(let.variable(), outer);
        });
    }

    // float row0 = (float) Math.log((double) r1); …; <loop reading row0>   (each of `values`, two slots apart from `firstSlot`)
    void withRowValues(List<Expr> values, int firstSlot, Runnable loop) {
        for (int n = 0; n < values.size(); n++) {
            emit(values.get(n));
            code.store(Code.scalarType(values.get(n).dtype()), firstSlot + 2 * n);
            rowValues.put(values.get(n), firstSlot + 2 * n);
        }
        loop.run();
        for (Expr value : values) rowValues.remove(value);
    }

    // float t0 = <value>; float t1 = <value reading t0>; …   before a loop body's stores
    void computeShared(List<Expr> exprs) {
        for (var shared : Expr.sharedValues(exprs)) {
            emit(shared.value());
            code.store(Code.scalarType(shared.dtype()), layout.shared().get(shared.id()));
        }
    }

    // out<i>[line + j * stride] = <value>
    void emitStore(int output) {
        int buffer = kernel.inputs().size() + output;
        var dtype = kernel.outputs().get(output).dtype();
        code.load(Type.getType(Object.class), layout.array(buffer));
        pushPosition(buffer);
        emit(kernel.outputs().get(output).value());
        code.op(Code.elementType(dtype).getOpcode(IASTORE));
    }

    // line<b> + j * stride<b>   (the stride on the inner axis; j alone for stride 1, nothing for 0)
    void pushPosition(int buffer) {
        code.loadInt(layout.line(buffer));
        int stride = space.innerStride(buffer);
        if (stride == 0) return;
        code.loadInt(layout.axis(space.inner()));
        if (stride != 1) {
            code.pushInt(stride);
            code.op(IMUL);
        }
        code.op(IADD);
    }

    /// Whether reduction `k` keeps each point's value for an [Expr.Element], in a row array or an output.
    boolean keeps(int k) { return layout.elements().get(k) >= 0 || ElementHome.of(kernel, k) >= 0; }

    // element<k>, elementLine + j   /   out<i>, line<i> + j   (the array and index where reduction
    // k keeps the current point's value: its row array, or the output that keeps it, ElementHome)
    void pushElementPlace(int k) {
        int home = ElementHome.of(kernel, k);
        if (home >= 0) {
            int buffer = kernel.inputs().size() + home;
            code.load(Type.getType(Object.class), layout.array(buffer));
            pushPosition(buffer);
            return;
        }
        code.load(Type.getType(Object.class), layout.elements().get(k));
        pushElementPosition();
    }

    // elementLine + j   (j alone when the row is one line)
    private void pushElementPosition() {
        if (!space.rowHasLines()) {
            code.loadInt(layout.axis(space.inner()));
            return;
        }
        code.loadInt(layout.elementLine());
        code.loadInt(layout.axis(space.inner()));
        code.op(IADD);
    }

    // element<k>[elementLine + j] = <value>   /   out<i>[line<i> + j] = <value>
    void storeElement(int k, Runnable value) {
        pushElementPlace(k);
        value.run();
        code.op(Code.elementType(kernel.reductions().get(k).value().dtype()).getOpcode(IASTORE));
    }

    // in<i>[line + j * stride]
    private void emitLoad(Expr.Load load) {
        code.load(Type.getType(Object.class), layout.array(load.input()));
        pushPosition(load.input());
        code.op(Code.elementType(load.dtype()).getOpcode(IALOAD));
    }

    // in<i>[line + j * stride + <index> * gatherStride]
    private void emitGather(Expr.Gather gather) {
        code.load(Type.getType(Object.class), layout.array(gather.input()));
        pushGatherPosition(gather);
        code.op(Code.elementType(gather.dtype()).getOpcode(IALOAD));
    }

    // line + j * stride + <index> * gatherStride   (the index is checked before the kernel runs)
    void pushGatherPosition(Expr.Gather gather) {
        pushPosition(gather.input());
        emit(gather.index());
        if (gather.stride() != 1) {
            code.pushInt(gather.stride());
            code.op(IMUL);
        }
        code.op(IADD);
    }

    // 2.5f
    private void emitConstant(Expr.Constant constant) { code.pushConstant(constant.dtype(), constant.value()); }

    // (float) i<axis>    (0 for a dropped axis of size 1)
    private void emitIndex(Expr.Index index) {
        int axis = space.axisOf().get(index.axis());
        if (axis < 0) code.pushInt(0);
        else code.loadInt(layout.axis(axis));
        convert(DType.I32, index.dtype());
    }

    private void emitUnary(Expr.Unary unary) {
        if (unary.dtype().isFloating()) emitFloatUnary(unary.op(), unary.x(), Code.scalarType(unary.dtype()));
        else emitIntUnary(unary.op(), unary.x());
    }

    private void emitFloatUnary(UnaryOp op, Expr x, Type type) {
        switch (op) {
            case STOP_GRADIENT -> emit(x);                                                                     // x
            case NEG -> { emit(x); code.op(type.getOpcode(INEG)); }                                           // -x
            case ABS -> { emit(x); (type == Type.FLOAT_TYPE ? JavaApi.ABS_FLOAT : JavaApi.ABS_DOUBLE).invoke(code.mv); } // Math.abs(x)
            case RECIPROCAL -> { code.pushConstant(dtypeOf(type), 1); emit(x); code.op(type.getOpcode(IDIV)); } // 1 / x
            case SQUARE -> { emit(x); code.op(type.getSize() == 2 ? DUP2 : DUP); code.op(type.getOpcode(IMUL)); } // x * x
            case RELU -> { emit(x); code.pushConstant(dtypeOf(type), 0); maximum(type); }                      // Math.max(x, 0f)
            case RSQRT -> {                                                                                    // 1f / (float) Math.sqrt((double) x)
                code.pushConstant(dtypeOf(type), 1);
                emitWidened(x, type);
                JavaApi.SQRT.invoke(code.mv);
                narrow(type);
                code.op(type.getOpcode(IDIV));
            }
            case EXP, EXPM1, LOG, LOG1P, SQRT, SIN, COS, TANH, SIGMOID, GELU_TANH, GELU_ERF, SILU, SOFTPLUS, SIGN -> {
                emitWidened(x, type);                                                                          // (float) Math.log1p((double) x)
                JavaApi.function(op).invoke(code.mv);
                narrow(type);
            }
        }
    }

    private void emitIntUnary(UnaryOp op, Expr x) {
        emit(x);
        switch (op) {
            case NEG -> code.op(INEG);                                   // -x
            case ABS -> JavaApi.ABS_INT.invoke(code.mv);                 // Math.abs(x)
            case SQUARE -> { code.op(DUP); code.op(IMUL); }              // x * x
            case RELU -> { code.pushInt(0); JavaApi.MAX_INT.invoke(code.mv); } // Math.max(x, 0)
            case SIGN -> JavaApi.SIGNUM_INT.invoke(code.mv);             // Integer.signum(x)
            case STOP_GRADIENT -> {}                                     // x
            case EXP, EXPM1, LOG, LOG1P, SQRT, RSQRT, RECIPROCAL, SIN, COS, TANH, SIGMOID, GELU_TANH, GELU_ERF, SILU, SOFTPLUS ->
                    throw new IllegalStateException(op + " of i32 passed KernelCheck");
        }
    }

    private void emitBinary(Expr.Binary binary) {
        var operands = binary.left().dtype();
        var type = Code.scalarType(operands);
        if (binary.op() == BinaryOp.POW) { emitPow(binary, type); return; }
        emit(binary.left());
        emit(binary.right());
        switch (binary.op()) {
            case ADD -> code.op(type.getOpcode(IADD));                   // a + b
            case SUB -> code.op(type.getOpcode(ISUB));                   // a - b
            case MUL -> code.op(type.getOpcode(IMUL));                   // a * b
            case DIV -> code.op(type.getOpcode(IDIV));                   // a / b (floats only)
            case MAXIMUM -> maximum(type);                               // Math.max(a, b)
            case MINIMUM -> minimum(type);                               // Math.min(a, b)
            case EQ, NE, LT, LE, GT, GE -> compare(binary.op(), type);   // a < b ? 1 : 0
            case POW -> throw new IllegalStateException("handled above");
        }
    }

    // (float) Scalars.pow((double) a, (double) b)   /   Scalars.pow(a, b) on i32
    private void emitPow(Expr.Binary binary, Type type) {
        if (type == Type.INT_TYPE) {
            emit(binary.left());
            emit(binary.right());
            JavaApi.POW_INT.invoke(code.mv);
            return;
        }
        emitWidened(binary.left(), type);
        emitWidened(binary.right(), type);
        JavaApi.POW.invoke(code.mv);
        narrow(type);
    }

    // <condition> != 0 ? <ifTrue> : <ifFalse>
    private void emitWhere(Expr.Where where) {
        emit(where.condition());
        code.ifElse(IFEQ, () -> emit(where.ifTrue()), () -> emit(where.ifFalse()));
    }

    // (int) x, (float) x, x != 0 …
    private void emitCast(Expr.Cast cast) {
        emit(cast.x());
        convert(cast.x().dtype(), cast.dtype());
    }

    // Randoms.uniform(<position>, <keyHigh>, <keyLow>)
    private void emitRandom(Expr.Random random) {
        emit(random.position());
        emit(random.keyHigh());
        emit(random.keyLow());
        JavaApi.random(random.distribution(), random.dtype()).invoke(code.mv);
    }

    // r<k>
    private void emitAccumulated(Expr.Accumulated accumulated) {
        code.load(Code.scalarType(accumulated.dtype()), layout.results().get(accumulated.reduction()));
    }

    // element<k>[elementLine + j]   /   out<i>[line<i> + j]
    private void emitElement(Expr.Element element) {
        pushElementPlace(element.reduction());
        code.op(Code.elementType(element.dtype()).getOpcode(IALOAD));
    }

    /// Converts the value on the stack as `DType.round` does: Java casts, and `x != 0` to `bool`.
    void convert(DType from, DType to) {
        if (from == to || from == DType.BOOL && to == DType.I32) return;
        switch (to) {
            case BOOL -> {
                switch (from) {
                    case F32 -> { code.op(FCONST_0); code.op(FCMPL); }
                    case F64 -> { code.op(DCONST_0); code.op(DCMPL); }
                    case BOOL, I32 -> { }
                }
                code.bool(IFEQ);
            }
            case I32 -> code.op(from == DType.F32 ? F2I : D2I);
            case F32 -> code.op(from == DType.F64 ? D2F : I2F);
            case F64 -> code.op(from == DType.F32 ? F2D : I2D);
        }
    }

    /// Compares the two values on the stack into a `bool`. NaN makes every comparison but `ne`
    /// false: `fcmpg` (NaN → 1) before the jumps for `<` and `<=`, `fcmpl` (NaN → -1) otherwise.
    private void compare(BinaryOp op, Type type) {
        if (type == Type.INT_TYPE) {
            code.bool(switch (op) {
                case EQ -> IF_ICMPNE;
                case NE -> IF_ICMPEQ;
                case LT -> IF_ICMPGE;
                case LE -> IF_ICMPGT;
                case GT -> IF_ICMPLE;
                case GE -> IF_ICMPLT;
                case ADD, SUB, MUL, DIV, POW, MAXIMUM, MINIMUM -> throw new IllegalArgumentException(op + " is no comparison");
            });
            return;
        }
        boolean less = op == BinaryOp.LT || op == BinaryOp.LE;
        code.op(type == Type.FLOAT_TYPE ? (less ? FCMPG : FCMPL) : (less ? DCMPG : DCMPL));
        code.bool(switch (op) {
            case EQ -> IFNE;
            case NE -> IFEQ;
            case LT -> IFGE;
            case LE -> IFGT;
            case GT -> IFLE;
            case GE -> IFLT;
            case ADD, SUB, MUL, DIV, POW, MAXIMUM, MINIMUM -> throw new IllegalArgumentException(op + " is no comparison");
        });
    }

    void maximum(Type type) {
        (type == Type.FLOAT_TYPE ? JavaApi.MAX_FLOAT : type == Type.DOUBLE_TYPE ? JavaApi.MAX_DOUBLE : JavaApi.MAX_INT).invoke(code.mv);
    }

    void minimum(Type type) {
        (type == Type.FLOAT_TYPE ? JavaApi.MIN_FLOAT : type == Type.DOUBLE_TYPE ? JavaApi.MIN_DOUBLE : JavaApi.MIN_INT).invoke(code.mv);
    }

    // (double) x
    void emitWidened(Expr x, Type type) {
        emit(x);
        if (type == Type.FLOAT_TYPE) code.op(F2D);
    }

    // (float) <double on the stack>
    void narrow(Type type) {
        if (type == Type.FLOAT_TYPE) code.op(D2F);
    }

    private static DType dtypeOf(Type type) { return type == Type.FLOAT_TYPE ? DType.F32 : DType.F64; }
}
