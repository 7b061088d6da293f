// SPDX-License-Identifier: Apache-2.0
package dev.smelt.pass;

import dev.smelt.ir.Node;
import dev.smelt.ir.Node.Expand;
import dev.smelt.ir.Node.MatMul;
import dev.smelt.ir.Node.Permute;
import dev.smelt.ir.Node.Reshape;
import dev.smelt.ir.Node.Slice;
import dev.smelt.ir.Shape;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;

/// Canonical chains of views, so that equal index maps are equal nodes and fusion reads one short
/// chain. Views only move elements, so every rule is exact. Between two reshapes a chain settles
/// into the order `expand(permute(slice…(x)))`: slices innermost (at most one per axis, in
/// ascending axis order, with the smallest `stop` that selects the same elements), then one
/// permutation, then one expand. Identity views disappear, two reshapes become one, and a
/// matmul reads a swap of its operand's last two axes through its transpose flag instead.
public final class ViewRules {
    private ViewRules() {}

    /// `n` with one view rule applied, or `n` itself.
    public static Node rewrite(Node n) {
        return switch (n) {
            case Reshape r -> reshape(r);
            case Permute p -> permute(p);
            case Expand e -> expand(e);
            case Slice s -> slice(s);
            case MatMul m -> matmul(m);
            default -> n;
        };
    }

    private static Node reshape(Reshape r) {
        if (r.x().shape().equals(r.shape())) return r.x();                                   // reshape to its own shape -> x
        if (r.x() instanceof Reshape inner) return new Reshape(inner.x(), r.shape());         // reshape∘reshape -> reshape
        return r;
    }

    private static Node permute(Permute p) {
        List<Integer> order = p.order();
        if (order.equals(identity(order.size()))) return p.x();                               // permute [0,1,…] -> x
        if (p.x() instanceof Permute(var x, var inner, var _, var _))                          // output i reads inner[order[i]]
            return new Permute(x, order.stream().map(inner::get).toList());
        if (p.x() instanceof Expand(var x, var _, var _))                                     // permute∘expand -> expand∘permute
            return new Expand(new Permute(x, order), p.shape());
        if (keepsOrderOfLongAxes(p)) return new Reshape(p.x(), p.shape());                    // moving only size-1 axes is a reshape
        return p;
    }

    private static Node expand(Expand e) {
        if (e.x().shape().equals(e.shape())) return e.x();                                    // expand to its own shape -> x
        if (e.x() instanceof Expand inner) return new Expand(inner.x(), e.shape());           // expand∘expand -> expand
        return e;
    }

    private static Node slice(Slice s) {
        int count = s.shape().dim(s.axis()), dim = s.x().shape().dim(s.axis());
        if (count == dim) return s.x();                                                       // all elements, in order -> x
        return switch (s.x()) {
            case Slice inner when inner.axis() == s.axis() ->                                // slice∘slice on one axis -> one slice
                    canonical(inner.x(), s.axis(), inner.start() + s.start() * inner.step(), count, inner.step() * s.step());
            case Slice inner when inner.axis() > s.axis() ->                                  // slices in ascending axis order
                    new Slice(canonical(inner.x(), s.axis(), s.start(), count, s.step()), inner.axis(), inner.start(), inner.stop(), inner.step());
            case Permute(var x, var order, var _, var _) ->                                  // slice∘permute -> permute∘slice
                    new Permute(canonical(x, order.get(s.axis()), s.start(), count, s.step()), order);
            case Expand(var x, var _, var _) when x.shape().dim(s.axis()) == 1 ->            // a slice of a broadcast axis is a shorter broadcast
                    new Expand(x, s.shape());
            case Expand(var x, var _, var _) ->                                              // slice∘expand -> expand∘slice
                    new Expand(canonical(x, s.axis(), s.start(), count, s.step()), s.shape());
            default -> {
                Node canonical = canonical(s.x(), s.axis(), s.start(), count, s.step());
                yield canonical.equals(s) ? s : canonical;                                    // already canonical: s itself
            }
        };
    }

    /// Elements `start, start+step, …` (`count` of them) of `axis`, spelled with the smallest stop
    /// (and step 1 when at most one element is taken), so that equal selections are equal nodes.
    private static Node canonical(Node x, int axis, int start, int count, int step) {
        if (count == x.shape().dim(axis)) return x;
        if (count <= 1) step = 1;
        return new Slice(x, axis, start, count == 0 ? start : start + (count - 1) * step + 1, step);
    }

    /// `matmul(permute(a, swap last two), b) -> matmul(a, b, transpose_a)`: the flag reads the same
    /// elements in the same order, without a view for fusion to resolve.
    private static Node matmul(MatMul m) {
        if (m.a() instanceof Permute p && swapsLastTwo(p))
            return new MatMul(p.x(), m.b(), !m.transposeA(), m.transposeB());
        if (m.b() instanceof Permute p && swapsLastTwo(p))
            return new MatMul(m.a(), p.x(), m.transposeA(), !m.transposeB());
        return m;
    }

    private static boolean swapsLastTwo(Permute p) {
        int rank = p.order().size();
        var swapped = new ArrayList<>(identity(rank));
        Collections.swap(swapped, rank - 2, rank - 1);
        return p.order().equals(swapped);
    }

    /// Whether the axes longer than 1 keep their relative order, so the row-major order of the
    /// elements is unchanged.
    private static boolean keepsOrderOfLongAxes(Permute p) {
        Shape in = p.x().shape();
        List<Integer> moved = p.order().stream().filter(axis -> in.dim(axis) != 1).toList();
        return IntStream.range(1, moved.size()).allMatch(i -> moved.get(i - 1) < moved.get(i));
    }

    private static List<Integer> identity(int rank) { return IntStream.range(0, rank).boxed().toList(); }
}
