// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import dev.smelt.Compiled;
import dev.smelt.Jit;
import dev.smelt.Traced;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.SmeltException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;

/// Gradient transforms, JAX style. `grad(f, argnums)` is a compiled function returning `∂f/∂xᵢ` for
/// the chosen arguments; `valueAndGrad` returns `f` too, from a forward and a backward program. The
/// backward is an ordinary graph built by the [Vjp] rules, so it runs through the same pipeline as
/// any compiled function (fused kernels, the same generated matmul), traced and compiled once per
/// input signature.
///
/// `f` must return one floating-point tensor with one element (the loss). Gradients are taken
/// with respect to floating-point arguments only; tensors `f` reads from fields or closures are
/// constants here (see [dev.smelt.optim.Optimizer] for training parameters).
public final class Autograd {
    private Autograd() {}

    /// `∂f/∂x` as a compiled function of `x`.
    public static Compiled grad(Jit.Function1 f) {
        nonNull(f);
        return grad(args -> Arrays.asList(f.apply(args.get(0))), 1, 0);
    }

    /// The gradients with respect to arguments `argnums` (default: the first), in that order.
    public static Compiled grad(Jit.Function2 f, int... argnums) {
        nonNull(f);
        return grad(args -> Arrays.asList(f.apply(args.get(0), args.get(1))), 2, argnums);
    }

    /// [#grad(Jit.Function2, int...)] for a function of three tensors.
    public static Compiled grad(Jit.Function3 f, int... argnums) {
        nonNull(f);
        return grad(args -> Arrays.asList(f.apply(args.get(0), args.get(1), args.get(2))), 3, argnums);
    }

    /// The gradients of a function of `arity` arguments: one program per signature that computes
    /// the forward and backward together, so fusion may cross between them.
    public static Compiled grad(Jit.FunctionN f, int arity, int... argnums) {
        nonNull(f);
        int[] wrt = argnums(argnums, arity);
        return Jit.compile(f, arity, traced -> withGradients(traced, wrt, false));
    }

    /// `f` and its gradients with respect to `argnums` (default: the first).
    public static ValueAndGrad valueAndGrad(Jit.Function1 f) {
        nonNull(f);
        return new ValueAndGrad(args -> Arrays.asList(f.apply(args.get(0))), 1, new int[] {0});
    }

    /// [#valueAndGrad(Jit.Function1)] for a function of two tensors, differentiated with respect to
    /// `argnums` (default: the first).
    public static ValueAndGrad valueAndGrad(Jit.Function2 f, int... argnums) {
        nonNull(f);
        return new ValueAndGrad(args -> Arrays.asList(f.apply(args.get(0), args.get(1))), 2, argnums(argnums, 2));
    }

    /// [#valueAndGrad(Jit.Function2, int...)] for a function of three tensors.
    public static ValueAndGrad valueAndGrad(Jit.Function3 f, int... argnums) {
        nonNull(f);
        return new ValueAndGrad(args -> Arrays.asList(f.apply(args.get(0), args.get(1), args.get(2))), 3, argnums(argnums, 3));
    }

    /// [#valueAndGrad(Jit.Function2, int...)] for a function of `arity` tensors.
    public static ValueAndGrad valueAndGrad(Jit.FunctionN f, int arity, int... argnums) {
        nonNull(f);
        return new ValueAndGrad(f, arity, argnums(argnums, arity));
    }

    /// `traced` with its outputs replaced by the gradients of its one output with respect to inputs
    /// `wrt` (preceded by the output itself when `withValue`): the joint forward/backward graph.
    static Traced withGradients(Traced traced, int[] wrt, boolean withValue) {
        Graph graph = traced.graph();
        var nodes = new Nodes(graph);
        var outputs = new ArrayList<Node>();
        if (withValue) outputs.add(loss(graph));
        outputs.addAll(fresh(gradients(graph, differentiable(graph, wrt), nodes), outputs));
        return traced.withGraph(new Graph(graph.inputs(), outputs));
    }

    /// `gradients`, each made [#fresh] against `earlier` outputs and the gradients before it.
    static List<Node> fresh(List<Node> gradients, List<Node> earlier) {
        var outputs = new ArrayList<>(earlier);
        for (Node gradient : gradients) outputs.add(fresh(gradient, outputs));
        return List.copyOf(outputs.subList(earlier.size(), outputs.size()));
    }

    /// A gradient is a new tensor, as in PyTorch, even where it is an argument (`∂(w·x)/∂w` is x; in
    /// `valueAndGrad`'s backward, `∂(a + b)` is the cotangent) or the same node as an earlier output
    /// (`∂(w + x)` is ones for both): a copy, which the compiler keeps (a reshape to its own shape),
    /// so writing into one never changes the other.
    private static Node fresh(Node gradient, List<Node> earlier) {
        boolean shared = gradient instanceof Node.Input || earlier.stream().anyMatch(output -> output == gradient);
        return shared ? new Node.Reshape(gradient, gradient.shape()) : gradient;
    }

    /// The backward transform on a graph: `∂output/∂x` for each of `wrt`, where `output` is the
    /// graph's one output (a floating-point scalar), as nodes built by `nodes` over the graph's own.
    /// Training steps build on this: they add update nodes that read these gradients.
    public static List<Node> gradients(Graph graph, List<Node.Input> wrt, Nodes nodes) {
        if (wrt == null || nodes == null || wrt.stream().anyMatch(java.util.Objects::isNull)) throw SmeltException.of("grad", "the inputs to differentiate, and the node builder, must be non-null");
        Node loss = loss(graph);
        return Backward.gradients(graph.inputs(), List.of(loss), List.of(nodes.constant(1, loss)), wrt, nodes);
    }

    /// The function's one output, which must be a single floating-point element.
    public static Node loss(Graph graph) {
        if (graph == null) throw SmeltException.of("grad", "the graph is null");
        if (graph.outputs().size() != 1)
            throw SmeltException.of("grad", "the function must return one tensor (the value to differentiate), not %d", graph.outputs().size());
        Node loss = graph.outputs().getFirst();
        if (!loss.dtype().isFloating() || loss.shape().size() != 1)
            throw SmeltException.of("grad", "the function must return a floating-point scalar, not %s%s; reduce it first (for example .sum() or .mean())", loss.dtype(), loss.shape());
        return loss;
    }

    /// The inputs to differentiate with respect to, each checked to be floating-point.
    static List<Node.Input> differentiable(Graph graph, int[] wrt) {
        var inputs = new ArrayList<Node.Input>();
        for (int slot : wrt) {
            Node.Input input = graph.inputs().get(slot);
            if (!input.dtype().isFloating())
                throw SmeltException.of("grad", "argument %d is %s%s; gradients exist only for f32 and f64 arguments", slot, input.dtype(), input.shape());
            inputs.add(input);
        }
        return inputs;
    }

    private static int[] argnums(int[] argnums, int arity) {
        if (arity < 1) throw SmeltException.of("grad", "a function of %d arguments has nothing to differentiate", arity);
        int[] wrt = argnums == null || argnums.length == 0 ? new int[] {0} : argnums.clone();
        var seen = new HashSet<Integer>();
        for (int index : wrt)
            if (index < 0 || index >= arity || !seen.add(index))
                throw SmeltException.of("grad", "argnums %s must be distinct argument indices in 0..%d", Arrays.toString(wrt), arity - 1);
        return wrt;
    }

    private static void nonNull(Object f) {
        if (f == null) throw SmeltException.of("grad", "the function is null");
    }
}
