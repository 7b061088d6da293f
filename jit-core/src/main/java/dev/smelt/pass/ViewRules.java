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
/// permutation, then one expand. A permutation moves only axes longer than 1 (reshapes that insert
/// or drop unit axes place the rest, and slices sink through them). Identity views disappear, two
/// reshapes become one, and a matmul reads a swap of its operand's last two axes through its
/// transpose flag instead. Every reshape the rules build only splits axes or moves unit axes, which
/// fusion reads through an affine index map; merging reshapes are never introduced.
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
        Shape in = p.x().shape();
        List<Integer> longAxes = IntStream.range(0, in.rank()).filter(axis -> in.dim(axis) != 1).boxed().toList();
        if (longAxes.size() == in.rank()) return p;
        // A permutation moves only the axes longer than 1; reshapes place the unit axes, so views that
        // differ only in where their unit axes go become one node: reshape(permute(reshape(x))).
        Node squeezed = new Reshape(p.x(), new Shape(longAxes.stream().map(in::dim).toList()));
        List<Integer> moved = order.stream().filter(axis -> in.dim(axis) != 1).map(longAxes::indexOf).toList();
        return new Reshape(new Permute(squeezed, moved), p.shape());
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
            case Reshape r when onlyUnitAxesDiffer(r.x().shape(), r.shape()) && r.shape().dim(s.axis()) != 1 ->  // through unit-axis reshapes
                    new Reshape(canonical(r.x(), sameLongAxis(r.shape(), s.axis(), r.x().shape()), s.start(), count, s.step()), s.shape());
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
    /// (step 1 for one element, `0:0:1` for none), so that equal selections are equal nodes.
    private static Node canonical(Node x, int axis, int start, int count, int step) {
        if (count == x.shape().dim(axis)) return x;
        if (count == 0) return new Slice(x, axis, 0, 0, 1);            // a composed empty start may lie past the end
        if (count == 1) step = 1;
        return new Slice(x, axis, start, start + (count - 1) * step + 1, step);
    }

    /// `matmul(permute(a, swap last two), b) -> matmul(a, b, transpose_a)`: the flag reads the same
    /// elements in the same order, without a view for fusion to resolve.
    private static Node matmul(MatMul m) {
        if (untransposed(m.a()) instanceof Node a) return new MatMul(a, m.b(), !m.transposeA(), m.transposeB());
        if (untransposed(m.b()) instanceof Node b) return new MatMul(m.a(), b, m.transposeA(), !m.transposeB());
        return m;
    }

    /// `z` such that `x` is `permute(z, swap last two)`, or null. Besides that permute itself, this
    /// sees through the reshape that places unit axes around a permutation of `w`'s last two axes:
    /// `reshape(permute(w, swap), s)` is `permute(reshape(w, s'), swap)` when `s` ends in `w`'s last two
    /// dimensions swapped (`s'` is `s` with them in `w`'s order), since row-major order splits alike.
    private static Node untransposed(Node x) {
        if (x instanceof Permute p && swapsLastTwo(p.order())) return p.x();
        if (!(x instanceof Reshape(Permute(var w, var order, var _, var _), var s, var _)) || !swapsLastTwo(order)) return null;
        int rank = s.rank(), wRank = w.shape().rank();
        if (rank < 2 || s.dim(rank - 2) != w.shape().dim(wRank - 1) || s.dim(rank - 1) != w.shape().dim(wRank - 2)) return null;
        return new Reshape(w, s.with(rank - 2, s.dim(rank - 1)).with(rank - 1, s.dim(rank - 2)));
    }

    private static boolean swapsLastTwo(List<Integer> order) {
        int rank = order.size();
        if (rank < 2) return false;
        var swapped = new ArrayList<>(identity(rank));
        Collections.swap(swapped, rank - 2, rank - 1);
        return order.equals(swapped);
    }

    /// Whether `from` and `to` list the same dimensions once their unit axes are dropped, so a
    /// reshape between them only inserts or removes unit axes and keeps every other index.
    private static boolean onlyUnitAxesDiffer(Shape from, Shape to) {
        return from.dims().stream().filter(d -> d != 1).toList().equals(to.dims().stream().filter(d -> d != 1).toList());
    }

    /// The axis of `other` that is `axis` of `shape` (a longer-than-1 axis) once unit axes are dropped.
    private static int sameLongAxis(Shape shape, int axis, Shape other) {
        int rank = (int) IntStream.range(0, axis).filter(a -> shape.dim(a) != 1).count();
        return IntStream.range(0, other.rank()).filter(a -> other.dim(a) != 1).skip(rank).findFirst().orElseThrow();
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
