// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelForm;
import java.util.List;

/// Estimated time, in nanoseconds, of a kernel and of what it is built from: the one unit in which
/// the fusion planner weighs bytes moved, arithmetic and register spills, and autograd weighs
/// saving a value against recomputing it. [#CALIBRATED] holds the weights measured on the
/// project's machine; the planner takes its model from [FusionPlanner.Options], so a test can
/// plan with another and see the choices follow it.
public interface CostModel {
    /// The weights `CalibrationBench` measured ([CalibratedCosts]): what Smelt plans with.
    CostModel CALIBRATED = new CalibratedCosts();

    /// The time of a kernel of any form, its loop bodies priced as written.
    double time(KernelForm kernel, Machine machine);

    /// The time of a loop kernel whose bodies' arithmetic and spills over all their runs take
    /// `computeTime` ([Sharing] measures it with [#operation] and [#spills]), or NaN to price them here.
    double kernelTime(Kernel kernel, Machine machine, double computeTime);

    /// The cost of `expr`'s own operation at one point, without its operands'.
    double operation(Expr expr);

    /// The spill penalty at one point of a body that needs `peak` registers.
    double spills(int peak, Machine machine);

    /// Keeping the value a reduction folds at each point of a row for a later pass ([Expr.Element])
    /// instead of computing it again, per point, for rows of `rowLength` elements.
    double keptElement(long rowLength, DType dtype);

    /// Streaming `bytes` in from memory.
    double read(double bytes);

    /// Streaming `bytes` out to memory.
    double write(double bytes);

    /// One kernel launch.
    double launch();

    /// Packing `elements` `f32` elements of a matmul operand whose lanes and steps both lie apart
    /// in memory, over packing them from a row-major copy ([Relayout]).
    double stridedPack(double elements);

    /// Writing `elements` `f32` elements of such an operand in row-major order first, launch aside.
    double relayoutCopy(double elements);

    /// The arithmetic of one pointwise graph operation per element (0 for other nodes): what
    /// recomputing it inside a kernel that reads it costs.
    double pointwise(Node node);

    /// Saving a value for a later program instead of recomputing it: written once, read back
    /// once, per element.
    double savedPerElement(DType dtype);

    /// The arithmetic of one loop body at one point: each distinct operation once. (Sharing keeps
    /// every value read twice in a register, so that is what generated code computes.)
    default double arithmetic(List<Expr> values) {
        double total = 0;
        for (Expr expr : Expr.nodes(values)) total += operation(expr);
        return total;
    }
}
