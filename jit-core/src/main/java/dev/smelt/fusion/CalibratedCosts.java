// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.DType;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.Transcendentals;

/// The [CostModel] Smelt plans with, its weights measured on the project's machine. A streaming
/// kernel overlaps memory and arithmetic, so a kernel costs the larger of its memory time and its
/// compute time, plus a launch.
///
/// The weights are per element of `f32` on one core of the machine the project is measured on (an
/// AMD EPYC with AVX-512, 2 cores); `benchmarks/…/CalibrationBench` measures each one, and its
/// comment names the line (values from the JMH run of 2026-11-22). `f64` costs twice per element
/// (half the lanes). SPILL_NS comes from `FusionBench.wide`.
final class CalibratedCosts implements CostModel {
    /// Streaming read of one byte: `CalibrationBench.read` (a sum over 64 MiB of f32).
    static final double READ_NS_PER_BYTE = 0.040;
    /// Reading one byte through a stride along the inner loop (a column of a row-major matrix) that
    /// generated code cannot turn into a column reduction ([ColumnReads]): each element comes from
    /// another cache line. `CalibrationBench.gather` (a sum down every 64th column of [1024,1024]
    /// f32: 74.1 µs for 64 KiB, quiet machine, 2026-11-22). A column reduction is priced at
    /// READ_NS_PER_BYTE: `CalibrationBench.column` went from 3.47 to 0.094 ms per call (0.83 to 0.022
    /// ns per byte) on 2026-11-22, below the streaming rate since its 4 MiB stay in cache (medians
    /// of three interleaved JMH runs each).
    static final double STRIDED_READ_NS_PER_BYTE = 1.13;
    /// Streaming write of one byte, with the read-for-ownership of its cache line:
    /// `CalibrationBench.copy` minus `read`.
    static final double WRITE_NS_PER_BYTE = 0.052;
    /// One kernel launch: binding buffers and the call through the tiered kernel (`CalibrationBench.launch`).
    static final double LAUNCH_NS = 250;
    /// An add, multiply, FMA, compare, select, cast, min/max, relu or bit operation on one element:
    /// about one vector instruction per 16 lanes (`CalibrationBench.add`, in L1). The `f32`
    /// transcendentals cost their rewritten steps' ([#rewritten]): 23 such for exp (0.168 ns;
    /// `CalibrationBench.exp` less `neg`, 64K floats, 2026-11-28: 0.13, where SVML's call took
    /// 0.20–0.21), 19 for sin (0.139 ns; `CalibrationBench.sin` 0.136), 37 for log (0.270 ns;
    /// measured 0.28) and 35 for tanh (0.257 ns; measured 0.24).
    static final double CHEAP_NS = 0.0073;
    /// A divide, square root or reciprocal: `CalibrationBench.div`.
    static final double DIVIDE_NS = 0.023;
    /// What vector code computes lane by lane with `Math`, so that it gives the scalar variant's bits:
    /// expm1, log1p, softplus, pow, gelu-erf and every `f64` transcendental. A harness over 1M
    /// elements: `f32` log 8.3 ns, `f64` exp 7.5, `f32` pow 12.7 per element.
    static final double LANE_NS = 7.5;
    /// One element of a random node (`Randoms`): a uniform draw is SplitMix64's finaliser on
    /// `LongVector` lanes, a normal one `StrictMath`'s log, sqrt and cos or sin lane by lane.
    /// `DropoutBench.uniform` and `normal` (rand and randn into f32[1M], 0.66 and 37.6 ms per call,
    /// 2026-11-26, load 5) less the write of 4 MiB.
    static final double UNIFORM_NS = 0.44;
    static final double NORMAL_NS = 36;
    /// A value over the register budget costs stores and reloads: `FusionBench.wide`, where greedy's
    /// one kernel (about 30 values over 32 registers) takes 0.48 ms and the two split kernels 0.29
    /// ms plus 0.10 ms of extra traffic, over 2^18 points: 0.037 ns per excess value and point.
    static final double SPILL_NS = 0.037;
    /// Reading a stored element of a reduction back from its row array (in L1).
    static final double ELEMENT_NS = 0.006;
    /// Rows of up to this many bytes stay in cache from one pass of a row kernel to the next: half
    /// the L2 of one core of the measured machine (1 MiB, lscpu), the rest left to the streams.
    static final long ROW_CACHE_BYTES = 1 << 19;

    /// One multiply-add of a generated matmul, per flop: `MatMulBench` sgemm 1024³ on one thread
    /// (about 85 GFLOP/s).
    static final double MATMUL_NS_PER_FLOP = 1 / 85.0;

    /// The extra cost of packing one `f32` element whose rows and steps both lie apart in memory,
    /// over packing it from a row-major copy, per time it is packed: `RelayoutBench` (t 512, d 1024,
    /// h 4, e 512: 2,097,152 elements packed once; one thread, Zen 4, load ≈ 3, 2026-11-26) ran
    /// `headsLast` in 31.3 ms when it was packed through its strides against 24.7 ms for `headsFirst`.
    static final double STRIDED_PACK_NS = 3.1;
    /// Writing one `f32` element of such an operand in row-major order first, by a vectorised copy
    /// kernel reading it through the same strides: `headsLast` with the copy, 25.5 ms, in the same runs.
    static final double COPY_NS = 0.4;

    /// The one instance: [CostModel#CALIBRATED].
    CalibratedCosts() {}

    @Override
    public double read(double bytes) { return bytes * READ_NS_PER_BYTE; }

    @Override
    public double write(double bytes) { return bytes * WRITE_NS_PER_BYTE; }

    @Override
    public double launch() { return LAUNCH_NS; }

    @Override
    public double stridedPack(double elements) { return elements * STRIDED_PACK_NS; }

    @Override
    public double relayoutCopy(double elements) { return elements * COPY_NS; }

    @Override
    public double time(dev.smelt.kernel.KernelForm kernel, Machine machine) {
        return switch (kernel) {
            case Kernel loops -> kernelTime(loops, machine, Double.NaN);
            case dev.smelt.kernel.MatMulKernel matmul -> matmulTime(matmul);
            case dev.smelt.kernel.UpdateKernel update -> updateTime(update);
            case dev.smelt.kernel.SortKernel sort -> LAUNCH_NS + sort.work() * COMPARE_NS;
            case dev.smelt.kernel.AttentionKernel attention -> attentionTime(attention);
        };
    }

    /// Fused attention: its products at the matmul's rate, slowed by [#ATTENTION_SLOWDOWN] for the
    /// online softmax between them and the smaller blocks, plus a launch. Its operands are read
    /// once per block of queries, from cache, so memory does not bound it.
    static double attentionTime(dev.smelt.kernel.AttentionKernel kernel) {
        double scale = kernel.dtype().bytes() == 8 ? 2 : 1;
        return ATTENTION_SLOWDOWN * kernel.flops() * MATMUL_NS_PER_FLOP * scale + LAUNCH_NS;
    }

    /// `AttentionBench` f32 [1, 12, 2048, 64], one thread, 2026-11-26: fused forward 64 GFLOP/s
    /// against sgemm 1024³'s 89 in the same session.
    static final double ATTENTION_SLOWDOWN = 1.4;

    /// A packed matmul: its flops at the generated micro-kernel's rate, or its bytes if more, plus
    /// its epilogue's arithmetic on each result while it is in cache, plus a launch.
    /// One comparison of a sort (a boxed merge sort, `SortFunction`): a guess, no benchmark has set it;
    /// nothing chooses between a sort and another plan yet.
    static final double COMPARE_NS = 5;

    /// A copy of the base and a walk over the region: each element read and written once.
    static double updateTime(dev.smelt.kernel.UpdateKernel kernel) {
        return LAUNCH_NS + kernel.work() * kernel.dtype().bytes() * (READ_NS_PER_BYTE + WRITE_NS_PER_BYTE);
    }

    private double matmulTime(dev.smelt.kernel.MatMulKernel kernel) {
        double memory = 0;
        for (var input : kernel.inputs()) memory += (double) input.size() * input.dtype().bytes() * READ_NS_PER_BYTE;
        long results = kernel.result().size();
        for (var output : kernel.outputs()) memory += (double) results * output.dtype().bytes() * WRITE_NS_PER_BYTE;
        double scale = kernel.dtype().bytes() == 8 ? 2 : 1;
        double compute = 2.0 * results * kernel.depth() * MATMUL_NS_PER_FLOP * scale
                + results * arithmetic(kernel.outputs().stream().map(Kernel.Output::value).toList());
        return Math.max(memory, compute) + LAUNCH_NS;
    }

    /// max(memory, compute + spills) + one launch.
    @Override
    public double kernelTime(Kernel kernel, Machine machine, double computeTime) {
        double memory = 0;
        int inner = kernel.space().rank() - 1;
        boolean columns = ColumnReads.vectorised(kernel, machine);
        for (var input : kernel.inputs()) {
            int stride = inner < 0 ? 1 : Math.abs(input.map().stride(inner));
            double perByte = stride > 1 && kernel.space().dim(inner) > 1 && !columns ? STRIDED_READ_NS_PER_BYTE : READ_NS_PER_BYTE;
            memory += (double) Math.min(input.size(), kernel.space().count()) * input.dtype().bytes() * perByte;
        }
        for (var output : kernel.outputs())
            memory += (double) (output.perRow() ? kernel.workItems() : kernel.space().count()) * output.dtype().bytes() * WRITE_NS_PER_BYTE;
        double compute = computeTime;
        if (Double.isNaN(compute)) {
            compute = 0;
            for (var body : Bodies.of(kernel)) compute += body.runs(kernel) * (arithmetic(body.values()) + spills(Pressure.peak(body), machine));
        }
        return Math.max(memory, compute) + LAUNCH_NS;
    }

    @Override
    public double operation(Expr expr) {
        double scale = expr.dtype().bytes() == 8 ? 2 : 1;
        return scale * switch (expr) {
            case Expr.Load _, Expr.Constant _, Expr.Accumulated _, Expr.Shared _ -> 0;
            case Expr.Element _ -> ELEMENT_NS;
            case Expr.Index _, Expr.Where _, Expr.Cast _ -> CHEAP_NS;
            case Expr.Unary unary -> unary(unary.op(), unary.dtype());
            case Expr.Binary binary -> binary(binary.op());
            case Expr.Random random -> random(random.distribution());
            case Expr.Gather _ -> CHEAP_NS; // the index arithmetic; the bytes are counted with the buffer's
            case Expr.Fma _, Expr.Bitwise _, Expr.Fallback _ -> CHEAP_NS; // a fallback: the test that every lane is in range
            case Expr.Bits _, Expr.Let _, Expr.Var _ -> 0; // the same register, read another way
        };
    }

    static double random(dev.smelt.ir.Distribution distribution) {
        return switch (distribution) {
            case UNIFORM -> UNIFORM_NS;
            case NORMAL -> NORMAL_NS;
        };
    }

    static double binary(dev.smelt.ir.BinaryOp op) {
        return switch (op) {
            case DIV -> DIVIDE_NS;
            case POW -> LANE_NS;
            case ADD, SUB, MUL, MAXIMUM, MINIMUM, EQ, NE, LT, LE, GT, GE -> CHEAP_NS;
        };
    }

    double unary(UnaryOp op, DType dtype) {
        return switch (op) {
            case STOP_GRADIENT -> 0;
            case NEG, ABS, SQUARE, RELU, SIGN -> CHEAP_NS;
            case SQRT, RSQRT, RECIPROCAL -> DIVIDE_NS;
            case EXP, LOG, TANH, SIN, COS, SIGMOID, SILU, GELU_TANH, SOFTPLUS -> Transcendentals.rewrites(op, dtype) ? rewritten(op, dtype) : LANE_NS;
            case EXPM1, LOG1P, GELU_ERF -> LANE_NS;
        };
    }

    // rewritten(op, dtype), counted on first use: [dtype][op] by ordinal, 0 until then. The planner
    // prices every operation of every trial plan, so a lookup allocates nothing.
    private final double[][] rewritten = new double[DType.values().length][UnaryOp.values().length];

    /// The arithmetic of `op`'s implementation as generated code computes it (`kernel.Transcendentals`),
    /// per element of `f32` as [#unary]'s other prices.
    double rewritten(UnaryOp op, DType dtype) {
        double price = rewritten[dtype.ordinal()][op.ordinal()];
        if (price == 0) // a race only counts the same tree twice
            rewritten[dtype.ordinal()][op.ordinal()] = price = arithmetic(java.util.List.of(Transcendentals.expand(op, new Expr.Load(0, dtype)))) / (dtype.bytes() == 8 ? 2 : 1);
        return price;
    }

    /// Each value over the register budget is stored and reloaded.
    @Override
    public double spills(int peak, Machine machine) {
        int excess = peak - machine.vectorRegisters();
        return excess > 0 ? excess * SPILL_NS : 0;
    }

    @Override
    public double pointwise(dev.smelt.ir.Node node) {
        double scale = node.dtype().bytes() == 8 ? 2 : 1;
        return scale * switch (node) {
            case dev.smelt.ir.Node.Unary unary -> unary(unary.op(), unary.dtype());
            case dev.smelt.ir.Node.Binary binary -> binary(binary.op());
            case dev.smelt.ir.Node.Where _, dev.smelt.ir.Node.Cast _ -> CHEAP_NS;
            case dev.smelt.ir.Node.Random random -> random(random.distribution());
            default -> 0;
        };
    }

    @Override
    public double savedPerElement(dev.smelt.ir.DType dtype) {
        return dtype.bytes() * (WRITE_NS_PER_BYTE + READ_NS_PER_BYTE);
    }

    /// A store and a reload per point, in cache while the row fits there, else through memory.
    @Override
    public double keptElement(long rowLength, dev.smelt.ir.DType dtype) {
        double scale = dtype.bytes() == 8 ? 2 : 1;
        return rowLength * dtype.bytes() <= ROW_CACHE_BYTES ? 2 * ELEMENT_NS * scale : dtype.bytes() * (WRITE_NS_PER_BYTE + READ_NS_PER_BYTE);
    }
}
