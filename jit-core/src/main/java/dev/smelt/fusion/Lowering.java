// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.Node;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.MatMulKernel;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/// Builds one kernel: each root's value as an expression over the kernel's loop, inlining every
/// node that has no buffer (fuse on read), reading buffers through index maps (views cost
/// nothing), and folding reductions of the kernel's row structure into it (softmax's max and sum).
///
/// A node that cannot be computed here is a [Realize] demand: lowering notes it, reads a
/// placeholder in its place and goes on, so one pass finds every demand of the kernel; a kernel
/// with demands is not built.
final class Lowering {
    private final ScheduleBuilder.Group group;
    private final Signature signature;
    private final Map<Node, Integer> buffers;
    private final Map<Node, ScheduleBuilder.Group> owners;
    private final int budget;
    private final Map<Read, Integer> inputIndex = new LinkedHashMap<>();
    private final List<Kernel.Input> inputs = new ArrayList<>();
    private final List<Integer> inputBuffers = new ArrayList<>();
    private final List<Kernel.Reduction> reductions = new ArrayList<>();
    private final List<Realize> demands = new ArrayList<>();
    private final Map<Node.MatMul, Product> products = new IdentityHashMap<>();
    private final Map<Node, Integer> absorbed = new IdentityHashMap<>();
    private final Set<Node> fusedOnce = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    private final List<Node> fused = new ArrayList<>();
    /// Each node's value per mapping, built once: a node read along many paths is one expression
    /// node, so lowering is linear in the graph (see [Expr]).
    private final Map<Computed, Expr> computed = new java.util.HashMap<>();
    private int operations;
    private boolean counting = true;
    /// The kernel's roots: buffers it writes itself, which its other roots read at their own point.
    private final Set<Node> roots;

    /// `buffers` holds every node that has a buffer; `owners` records which kernel absorbed each
    /// reduction, so no reduction is folded into two kernels.
    Lowering(ScheduleBuilder.Group group, Map<Node, Integer> buffers, Map<Node, ScheduleBuilder.Group> owners, int budget, Set<Node> roots) {
        this.roots = roots;
        this.group = group;
        this.signature = group.signature();
        this.buffers = buffers;
        this.owners = owners;
        this.budget = budget;
    }

    /// The nodes that need buffers before this kernel can be built; empty when it can.
    List<Realize> demands() { return demands; }

    /// The reductions this kernel folds: no other kernel may fold them too.
    Set<Node> claimed() { return absorbed.keySet(); }

    List<Integer> inputBuffers() { return inputBuffers; }

    List<Kernel.Input> inputs() { return List.copyOf(inputs); }

    /// One distinct read: a buffer through an index map. Reads of one buffer by one map are shared.
    private record Read(int buffer, Kernel.Input input) {
        // this record's and Computed's own equals and hashCode, written out: generated ones are
        // bootstrapped on first use, which a fresh JVM's first compile pays for
        public boolean equals(Object o) { return o instanceof Read r && buffer == r.buffer && input.equals(r.input); }
        public int hashCode() { return 31 * buffer + input.hashCode(); }
    }

    List<Kernel.Reduction> reductions() { return reductions; }

    /// A matmul this kernel folds, read from its operands' buffers: its kernel inputs `left` and
    /// `right`, from which [MatMulLaunch] builds the matmul's own kernel.
    record Product(int left, int right) {}

    /// The matmuls this kernel folds whose operands it reads from buffers (through views at most).
    Map<Node.MatMul, Product> products() { return products; }

    /// The nodes this kernel computes, each once, in the order lowering reached them.
    List<Node> fused() { return List.copyOf(fused); }

    private record Computed(Node node, Mapping mapping) {
        public boolean equals(Object o) { return o instanceof Computed c && node.equals(c.node) && mapping.equals(c.mapping); }
        public int hashCode() { return 31 * node.hashCode() + mapping.hashCode(); }
    }

    /// `root`'s value at each kernel point mapped by `mapping`, computing `root` itself even if it has a buffer.
    Expr root(Node root, Mapping mapping) { return compute(root, mapping); }

    Expr lower(Node node, Mapping mapping) {
        if (!buffers.containsKey(node)) return compute(node, mapping);
        if (!roots.contains(node)) return load(node, mapping);
        // Another root of this kernel, computed here too and shared in a register: its
        // operations were counted when it was lowered as a root.
        boolean was = counting;
        counting = false;
        try {
            return compute(node, mapping);
        } finally {
            counting = was;
        }
    }

    private Expr compute(Node node, Mapping mapping) {
        var key = new Computed(node, mapping);
        Expr known = computed.get(key);
        if (known != null) return known;
        Expr value = computeOnce(node, mapping);
        computed.put(key, value);
        return value;
    }

    private Expr computeOnce(Node node, Mapping mapping) {
        var read = new FusionRules.Read(node, mapping);
        if (FusionRules.MERGED_RESHAPE.test(read)) return demand(node, FusionRules.MERGED_RESHAPE.reason());
        if (FusionRules.BUDGET.test(count(node))) return demand(node, FusionRules.BUDGET.reason(budget));
        var rule = FusionRules.unfusable(read);
        if (rule != null) return demand(node, rule.reason());
        return switch (node) {
            case Node.Input in -> throw new IllegalStateException("input %" + in.slot() + " has no buffer");
            case Node.Constant c -> new Expr.Constant(c.value(), c.dtype());
            case Node.Iota iota -> Indexes.of(iota, mapping);
            case Node.Unary u when u.op() == UnaryOp.STOP_GRADIENT -> lower(u.x(), mapping);  // the passes' job, when they are off
            case Node.Unary u -> new Expr.Unary(u.op(), lower(u.x(), mapping));
            case Node.Binary b -> new Expr.Binary(b.op(), lower(b.left(), mapping), lower(b.right(), mapping));
            case Node.Where w -> new Expr.Where(lower(w.condition(), mapping), lower(w.ifTrue(), mapping), lower(w.ifFalse(), mapping));
            case Node.Cast c -> new Expr.Cast(lower(c.x(), mapping), c.dtype());
            case Node.Reshape r -> reshaped(r, mapping);
            case Node.Permute p -> lower(p.x(), mapping.permuted(p.x().shape(), p.order()));
            case Node.Expand e -> lower(e.x(), mapping.expanded(e.x().shape()));
            case Node.Slice s -> lower(s.x(), mapping.sliced(s.x().shape(), s.axis(), s.start(), s.step()));
            case Node.Reduce r -> r.axes().isEmpty() ? foldAlone(r, mapping) : accumulated(r, mapping);
            case Node.MatMul m -> accumulated(m, mapping);
            case Node.Random r -> random(r, mapping);
            case Node.IndexCheck c -> throw new IllegalStateException("index checks run before the kernels (pass.IndexChecks), not in one: " + c);
            case Node.Gather g -> gather(g, mapping);
            case Node.Concat _, Node.Scatter _, Node.SliceUpdate _, Node.ArgSort _, Node.Attention _ ->
                    throw new IllegalStateException("FusionRules gives " + node + " a kernel of its own");
        };
    }

    // A merging reshape reads its operand by flat position only, at which a view or a reduction
    // below cannot be computed ([FusionRules#MERGED_RESHAPE]): each of those would get a buffer
    // of its own, views at the operand's full size (a mean broadcast over its rows, written out).
    // The operand takes one instead, no larger, written by the kernel that computes it in its own
    // shape, where views are read in place and reductions fold.
    private Expr reshaped(Node.Reshape r, Mapping mapping) {
        Mapping operand = mapping.reshaped(r.x().shape());
        if (!operand.isAffine() && FusionRules.FLAT_OPERAND.test(flatBlocked(r.x(), new IdentityHashMap<>())))
            return demand(r.x(), FusionRules.FLAT_OPERAND.reason());
        return lower(r.x(), operand);
    }

    // Whether computing `node` by flat position would demand a buffer below it: it reaches,
    // through elementwise nodes only, a node without a buffer that is not elementwise.
    private boolean flatBlocked(Node node, Map<Node, Boolean> seen) {
        if (buffers.containsKey(node)) return false;
        Boolean known = seen.get(node);
        if (known != null) return known;
        boolean blocked = switch (node) {
            case Node.Constant _, Node.Random _ -> false;
            case Node.Unary _, Node.Binary _, Node.Where _, Node.Cast _, Node.Reshape _ -> {
                boolean any = false;
                for (Node input : node.inputs()) any = any || flatBlocked(input, seen);
                yield any;
            }
            default -> true;
        };
        seen.put(node, blocked);
        return blocked;
    }

    // in<i>[line + index·stride]: the source read in place from its buffer, through any views, at the
    // point with the gathered axis at 0, moved by the index times that axis's stride in the buffer.
    private Expr gather(Node.Gather g, Mapping mapping) {
        Expr index = lower(g.index(), mapping);
        Mapping first = mapping.gathered(g.x().shape(), g.axis(), 0), second = mapping.gathered(g.x().shape(), g.axis(), 1);
        Node source = g.x();
        // through views to the buffer; a merging reshape leaves only the flat position, which other views cannot map
        while (!buffers.containsKey(source) && (first.isAffine() || source instanceof Node.Reshape) && viewOperand(source, first) != null) {
            first = viewOperand(source, first);
            second = viewOperand(source, second);
            source = source.inputs().getFirst();
        }
        if (FusionRules.GATHER_SOURCE.test(buffers.containsKey(source))) return demand(source, FusionRules.GATHER_SOURCE.reason());
        IndexMap base = first.dense();
        int stride = second.dense().offset() - base.offset();
        int input = input(buffers.get(source), new Kernel.Input(source.dtype(), source.shape().size(), base));
        return new Expr.Gather(input, index, stride, g.x().shape().dim(g.axis()), g.dtype());
    }

    // The mapping of a view's operand, as computeOnce reads it (AttentionLaunch reads views so too);
    // null when `node` is not a view.
    static Mapping viewOperand(Node node, Mapping mapping) {
        return switch (node) {
            case Node.Reshape r -> mapping.reshaped(r.x().shape());
            case Node.Permute p -> mapping.permuted(p.x().shape(), p.order());
            case Node.Expand e -> mapping.expanded(e.x().shape());
            case Node.Slice s -> mapping.sliced(s.x().shape(), s.axis(), s.start(), s.step());
            case Node.Input _, Node.Constant _, Node.Iota _, Node.Random _, Node.Unary _, Node.Binary _, Node.Where _, Node.Cast _, Node.IndexCheck _,
                 Node.Reduce _, Node.MatMul _, Node.Concat _, Node.Gather _, Node.Scatter _, Node.SliceUpdate _, Node.ArgSort _, Node.Attention _ -> null;
        };
    }

    // rand<f32>(position, key[0], key[1]): each point draws the element at its row-major position
    private Expr random(Node.Random r, Mapping mapping) {
        int rank = mapping.kernelRank();
        Expr high = lower(r.key(), Mapping.element(r.key().shape(), 0, rank)), low = lower(r.key(), Mapping.element(r.key().shape(), 1, rank));
        return new Expr.Random(r.distribution(), Indexes.position(mapping), high, low, r.dtype());
    }

    /// Counts `node` among the kernel's operations; returns by how many the kernel then exceeds its
    /// budget (0 or less when it does not). ([KernelBudget] has cut the graph so that it does not.)
    private int count(Node node) {
        boolean counted = switch (node) {
            // A node reached twice is computed once (shared); the budget counts it once.
            case Node.Unary _, Node.Binary _, Node.Where _, Node.Cast _, Node.Reduce _, Node.MatMul _, Node.Iota _, Node.Random _, Node.Gather _ ->
                    fusedOnce.add(node) && fused.add(node) && counting;
            case Node.Input _, Node.Constant _, Node.Reshape _, Node.Permute _, Node.Expand _, Node.Slice _, Node.Concat _, Node.IndexCheck _, Node.Attention _ -> false;
            case Node.Scatter _, Node.SliceUpdate _, Node.ArgSort _ -> false;
        };
        return counted ? ++operations - budget : 0;
    }

    /// Notes that `node` needs a buffer and stands in for its value: the kernel will not be built.
    private Expr demand(Node node, String reason) { return demand(node, Realize.Kind.LOOP, reason); }

    private Expr demand(Node node, Realize.Kind kind, String reason) {
        demands.add(new Realize(node, kind, reason));
        return new Expr.Constant(0, node.dtype());
    }

    /// A reduction over no axes folds each element alone: `0 + x` (so -0 becomes +0), `1·x`, `max(-inf, x) = x`.
    private Expr foldAlone(Node.Reduce r, Mapping mapping) {
        Expr x = lower(r.x(), mapping);
        return r.op() == ReduceOp.SUM ? new Expr.Binary(BinaryOp.ADD, x, new Expr.Constant(0, x.dtype())) : x;
    }

    /// A buffer read: dense in the node's shape, so the mapping's flat position is the index map.
    private Expr load(Node node, Mapping mapping) {
        return new Expr.Load(input(buffers.get(node), new Kernel.Input(node.dtype(), node.shape().size(), mapping.dense())), node.dtype());
    }

    /// The kernel's input number for reading `buffer` as `input`, shared by every read of both.
    private int input(int buffer, Kernel.Input input) {
        var read = new Read(buffer, input);
        Integer index = inputIndex.get(read);
        if (index == null) {
            index = inputs.size();
            inputIndex.put(read, index);
            inputs.add(input);
            inputBuffers.add(read.buffer());
        }
        return index;
    }

    /// A reduction (or matmul) of this kernel's row structure, read once per row: folded into
    /// this kernel unless another kernel already folds it or the rows do not line up.
    private Expr accumulated(Node reduction, Mapping mapping) {
        Signature own = Signature.of(reduction);
        Mapping perRow = signature.rowMapping(reduction.shape());
        if (FusionRules.ROWS.test(new FusionRules.Fold(own, signature, perRow, mapping))) return demand(reduction, FusionRules.ROWS.reason());
        var owner = owners.putIfAbsent(reduction, group);
        if (FusionRules.CLAIMED.test(owner != null && owner != group)) return demand(reduction, Realize.Kind.CLAIMED, FusionRules.CLAIMED.reason());
        Integer known = absorbed.get(reduction);
        if (known != null) return new Expr.Accumulated(known, reductions.get(known).dtype());
        var folded = fold(reduction);
        absorbed.put(reduction, reductions.size());
        reductions.add(folded);
        return new Expr.Accumulated(reductions.size() - 1, folded.dtype());
    }

    private Kernel.Reduction fold(Node reduction) {
        Mapping operand = signature.operandMapping();
        return switch (reduction) {
            case Node.Reduce r -> new Kernel.Reduction(r.op(), lower(r.x(), operand));
            case Node.MatMul m -> {
                Expr a = lower(m.a(), MatMuls.left(m, signature)), b = lower(m.b(), MatMuls.right(m, signature));
                // An operand read other than from a buffer was demanded one: this kernel is not built.
                if (!(a instanceof Expr.Load left && b instanceof Expr.Load right)) yield new Kernel.Reduction(ReduceOp.SUM, new Expr.Constant(0, m.dtype()));
                products.put(m, new Product(left.input(), right.input()));
                // r0 as [MatMulKernel] defines it, over which ElementReuse and Sharing weigh the
                // epilogue; no kernel runs it as a loop ([MatMulLaunch] makes it a MatMulKernel).
                yield MatMulKernel.product(left.input(), right.input(), m.dtype());
            }
            default -> throw new IllegalStateException("not a reduction: " + reduction);
        };
    }

}
