// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.SmeltException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/// `einsum` as PyTorch and NumPy define it, lowered to views, sums and batched matmuls, so that
/// eager and traced code, autograd and fusion see only ops they already know. Subscripts are
/// letters (`A`–`Z`, `a`–`z`); `...` stands for broadcast axes; a label's sizes must match or be 1;
/// a label repeated in one operand takes the diagonal; without `->` the output is the ellipsis axes
/// and then the labels used once, in ASCII order. Operands are contracted left to right, each pair
/// as one batched matmul `[batch, free, contracted] × [batch, contracted, free]`: labels that only
/// one operand has and nothing later needs are summed out first.
public final class Einsum {
    private Einsum() {}

    private static final int ELLIPSIS = 52; // labels 0–51 are letters; 52 + k is the k-th broadcast axis

    /// An operand and the label of each of its axes.
    private record Term(Value tensor, List<Integer> labels) {}

    public static Value apply(String spec, Value... operands) {
        Ops.nonNull("einsum", spec, operands);
        Ops.nonNull("einsum", (Object[]) operands);
        String compact = spec.replace(" ", "");
        int arrow = compact.indexOf("->");
        List<String> inputs = List.of((arrow < 0 ? compact : compact.substring(0, arrow)).split(",", -1));
        if (inputs.size() != operands.length)
            throw SmeltException.of("einsum", "\"%s\" has %d operand subscripts but %d tensors were given", spec, inputs.size(), operands.length);
        int broadcast = 0;
        var parsed = new ArrayList<List<Integer>>();
        for (int i = 0; i < operands.length; i++) {
            parsed.add(labels(spec, inputs.get(i), "operand " + i));
            broadcast = Math.max(broadcast, ellipsisRank(spec, parsed.get(i), operands[i], i));
        }
        var terms = new ArrayList<Term>();
        for (int i = 0; i < operands.length; i++) terms.add(new Term(operands[i], expandEllipsis(parsed.get(i), operands[i].rank(), broadcast)));
        List<Integer> output = arrow < 0 ? implicitOutput(terms, broadcast) : explicitOutput(spec, compact.substring(arrow + 2), terms, broadcast);
        int[] sizes = sizes(spec, terms, broadcast);
        DType dtype = operands[0].dtype();
        for (Value operand : operands) dtype = DType.promote(dtype, operand.dtype());
        for (int i = 0; i < terms.size(); i++) terms.set(i, prepare(spec, terms.get(i), sizes, dtype));
        Term result = terms.getFirst();
        for (int i = 1; i < terms.size(); i++) {
            var needed = new TreeSet<>(output);
            for (Term later : terms.subList(i + 1, terms.size())) needed.addAll(later.labels());
            result = contract(result, terms.get(i), needed, sizes);
        }
        result = sumOut(result, Set.copyOf(output));
        int[] order = new int[output.size()];
        for (int i = 0; i < order.length; i++) order[i] = result.labels().indexOf(output.get(i));
        return isIdentity(order) ? result.tensor() : Views.permute(result.tensor(), order);
    }

    // The labels of one subscript; -1 marks where `...` stands.
    private static List<Integer> labels(String spec, String subscript, String where) {
        var labels = new ArrayList<Integer>();
        for (int i = 0; i < subscript.length(); i++) {
            char c = subscript.charAt(i);
            if (subscript.startsWith("...", i)) {
                if (labels.contains(-1)) throw SmeltException.of("einsum", "\"%s\": %s has more than one ...", spec, where);
                labels.add(-1);
                i += 2;
            } else if (c >= 'A' && c <= 'Z') labels.add(c - 'A');
            else if (c >= 'a' && c <= 'z') labels.add(26 + c - 'a');
            else throw SmeltException.of("einsum", "\"%s\": invalid subscript character '%c' in %s; expected letters, ',', '->' and '...'", spec, c, where);
        }
        return labels;
    }

    private static int ellipsisRank(String spec, List<Integer> labels, Value operand, int index) {
        int named = labels.contains(-1) ? labels.size() - 1 : labels.size();
        if (labels.contains(-1) ? operand.rank() < named : operand.rank() != named)
            throw SmeltException.of("einsum", "\"%s\": operand %d has shape %s (%d axes) but its subscripts name %d%s", spec, index, operand.shape(),
                    operand.rank(), named, labels.contains(-1) ? " and more" : "");
        return operand.rank() - named;
    }

    // `...` replaced by the broadcast labels of its axes, aligned to the right as broadcasting does.
    private static List<Integer> expandEllipsis(List<Integer> labels, int rank, int broadcast) {
        int at = labels.indexOf(-1);
        if (at < 0) return labels;
        int axes = rank - (labels.size() - 1);
        var expanded = new ArrayList<>(labels.subList(0, at));
        for (int k = broadcast - axes; k < broadcast; k++) expanded.add(ELLIPSIS + k);
        expanded.addAll(labels.subList(at + 1, labels.size()));
        return expanded;
    }

    private static List<Integer> implicitOutput(List<Term> terms, int broadcast) {
        var output = new ArrayList<Integer>();
        for (int k = 0; k < broadcast; k++) output.add(ELLIPSIS + k);
        int[] uses = new int[ELLIPSIS];
        for (Term term : terms) for (int label : term.labels()) if (label < ELLIPSIS) uses[label]++;
        for (int label = 0; label < ELLIPSIS; label++) if (uses[label] == 1) output.add(label);
        return output;
    }

    private static List<Integer> explicitOutput(String spec, String subscript, List<Term> terms, int broadcast) {
        List<Integer> labels = labels(spec, subscript, "the output");
        var used = new LinkedHashSet<Integer>();
        for (Term term : terms) used.addAll(term.labels());
        for (int label : labels)
            if (label >= 0 && !used.contains(label)) throw SmeltException.of("einsum", "\"%s\": output subscript '%c' appears in no operand", spec, letter(label));
        if (new LinkedHashSet<>(labels).size() != labels.size()) throw SmeltException.of("einsum", "\"%s\": an output subscript appears twice", spec);
        // Without `...` in the output, the broadcast axes are summed, as in PyTorch.
        return expandEllipsis(labels, labels.size() - (labels.contains(-1) ? 1 : 0) + broadcast, broadcast);
    }

    // Each label's size: equal wherever it appears, or 1 there (broadcast).
    private static int[] sizes(String spec, List<Term> terms, int broadcast) {
        int[] sizes = new int[ELLIPSIS + broadcast], from = new int[sizes.length];
        Arrays.fill(sizes, -1);
        for (int t = 0; t < terms.size(); t++) {
            Term term = terms.get(t);
            for (int axis = 0; axis < term.labels().size(); axis++) {
                int label = term.labels().get(axis), size = term.tensor().dim(axis);
                if (sizes[label] < 0 || sizes[label] == 1 && size != 1) {
                    sizes[label] = size;
                    from[label] = t;
                } else if (size != sizes[label] && size != 1 && from[label] != t) // within one operand: a diagonal, checked by prepare
                    throw SmeltException.of("einsum", "\"%s\": subscript %s has size %d in operand %d but %d in operand %d; expected equal sizes or 1", spec,
                            name(label), sizes[label], from[label], size, t);
            }
        }
        return sizes;
    }

    // An operand's diagonals taken, its axes broadcast to their labels' sizes, cast to the common dtype.
    private static Term prepare(String spec, Term term, int[] sizes, DType dtype) {
        Value tensor = term.tensor().dtype() == dtype ? term.tensor() : Ops.cast(term.tensor(), dtype);
        var labels = new ArrayList<>(term.labels());
        for (int first = 0; first < labels.size(); first++) {
            int second = labels.subList(first + 1, labels.size()).indexOf(labels.get(first));
            if (second < 0) continue;
            second += first + 1;
            int n = tensor.dim(first);
            if (tensor.dim(second) != n)
                throw SmeltException.of("einsum", "\"%s\": subscript %s repeats in one operand with sizes %d and %d; a diagonal needs equal sizes", spec,
                        name(labels.get(first)), n, tensor.dim(second));
            tensor = diagonal(tensor, first, second);
            int label = labels.get(first);
            labels.remove(second);
            labels.remove(first);
            labels.add(label);
            first = -1; // the axes moved: look again from the start
        }
        int[] target = new int[labels.size()];
        boolean expand = false;
        for (int axis = 0; axis < target.length; axis++) {
            target[axis] = sizes[labels.get(axis)];
            expand |= target[axis] != tensor.dim(axis);
        }
        return new Term(expand ? Views.expand(tensor, target) : tensor, labels);
    }

    // Axes `first` and `second` (equal size n) replaced by their diagonal, as the last axis: moved to
    // the end, flattened to n·n, and every (n+1)-th element taken.
    private static Value diagonal(Value tensor, int first, int second) {
        int rank = tensor.rank(), n = tensor.dim(first);
        int[] order = new int[rank];
        int[] shape = new int[rank - 1];
        for (int axis = 0, at = 0; axis < rank; axis++)
            if (axis != first && axis != second) {
                order[at] = axis;
                shape[at++] = tensor.dim(axis);
            }
        order[rank - 2] = first;
        order[rank - 1] = second;
        shape[rank - 2] = n * n;
        return Views.slice(Views.reshape(Views.permute(tensor, order), shape), rank - 2, 0, n * n, n + 1);
    }

    // Labels of `term` that `keep` does not name, summed out.
    private static Term sumOut(Term term, Set<Integer> keep) {
        var axes = new ArrayList<Integer>();
        var labels = new ArrayList<Integer>();
        for (int axis = 0; axis < term.labels().size(); axis++) {
            if (keep.contains(term.labels().get(axis))) labels.add(term.labels().get(axis));
            else axes.add(axis);
        }
        if (axes.isEmpty()) return term;
        return new Term(Reductions.reduce(ReduceOp.SUM, term.tensor(), axes.stream().mapToInt(Integer::intValue).toArray(), false), labels);
    }

    // `a` and `b` contracted over the labels they share and `needed` does not name: one batched matmul
    // for floating dtypes, a broadcast product and a sum for the others (matmul is floating only).
    private static Term contract(Term a, Term b, Set<Integer> needed, int[] sizes) {
        var keepA = new TreeSet<>(needed);
        keepA.addAll(b.labels());
        var keepB = new TreeSet<>(needed);
        keepB.addAll(a.labels());
        a = sumOut(a, keepA);
        b = sumOut(b, keepB);
        List<Integer> batch = new ArrayList<>(), contracted = new ArrayList<>(), freeA = new ArrayList<>(), freeB = new ArrayList<>();
        for (int label : a.labels()) (b.labels().contains(label) ? needed.contains(label) ? batch : contracted : freeA).add(label);
        for (int label : b.labels()) if (!a.labels().contains(label)) freeB.add(label);
        var labels = new ArrayList<Integer>(batch);
        labels.addAll(freeA);
        labels.addAll(freeB);
        if (!a.tensor().dtype().isFloating()) {
            var all = new ArrayList<>(labels);
            all.addAll(contracted);
            Value product = Ops.binary(BinaryOp.MUL, align(a, all, sizes), align(b, all, sizes));
            return sumOut(new Term(product, all), Set.copyOf(labels));
        }
        Value left = arrange(a, batch, freeA, contracted, sizes), right = arrange(b, batch, contracted, freeB, sizes);
        int[] shape = new int[labels.size()];
        for (int i = 0; i < shape.length; i++) shape[i] = sizes[labels.get(i)];
        return new Term(Views.reshape(Ops.matmul(left, right), shape), labels);
    }

    // `term` permuted to `[outer…, rows…, columns…]` and reshaped to [outer, rows, columns].
    private static Value arrange(Term term, List<Integer> outer, List<Integer> rows, List<Integer> columns, int[] sizes) {
        var order = new ArrayList<Integer>();
        for (List<Integer> group : List.of(outer, rows, columns)) for (int label : group) order.add(term.labels().indexOf(label));
        int[] permutation = order.stream().mapToInt(Integer::intValue).toArray();
        Value permuted = isIdentity(permutation) ? term.tensor() : Views.permute(term.tensor(), permutation);
        return Views.reshape(permuted, new int[] {product(outer, sizes), product(rows, sizes), product(columns, sizes)});
    }

    // `term` with an axis per label of `all`, in that order: size 1 where it lacks the label, then broadcast.
    private static Value align(Term term, List<Integer> all, int[] sizes) {
        var present = new ArrayList<Integer>();
        for (int label : all) if (term.labels().contains(label)) present.add(term.labels().indexOf(label));
        Value tensor = Views.permute(term.tensor(), present.stream().mapToInt(Integer::intValue).toArray());
        int[] shape = new int[all.size()], full = new int[all.size()];
        for (int i = 0; i < shape.length; i++) {
            full[i] = sizes[all.get(i)];
            shape[i] = term.labels().contains(all.get(i)) ? full[i] : 1;
        }
        return Views.expand(Views.reshape(tensor, shape), full);
    }

    private static int product(List<Integer> labels, int[] sizes) {
        long product = 1;
        for (int label : labels) product *= sizes[label];
        if (product > Value.MAX_SIZE) throw SmeltException.of("einsum", "an intermediate axis of %d elements is too large", product);
        return (int) product;
    }

    private static boolean isIdentity(int[] order) {
        for (int i = 0; i < order.length; i++) if (order[i] != i) return false;
        return true;
    }

    private static char letter(int label) { return (char) (label < 26 ? 'A' + label : 'a' + label - 26); }

    private static String name(int label) { return label < ELLIPSIS ? "'" + letter(label) + "'" : "... axis " + (label - ELLIPSIS); }
}
