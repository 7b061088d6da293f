// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/// Structural equality and hashing of [Expr]s in time linear in their DAGs. A record's generated
/// `equals` and `hashCode` walk the tree an expression unfolds to, which doubles with every level
/// that reuses a value; here each pair of nodes is compared, and each node hashed, once.
public final class Structure {
    private Structure() {}

    /// Structural hashes remembered across calls: for comparing many nodes of one kernel.
    public static java.util.function.ToIntFunction<Expr> hashes() {
        Map<Expr, Integer> known = new IdentityHashMap<>();
        return expr -> hash(expr, known);
    }

    static boolean equal(Expr a, Expr b) {
        if (a == b) return true;
        if (a.getClass() != b.getClass() || !sameAttributes(a, b)) return false;
        return Expr.isLeaf(a) ? a.equals(b) : equal(a, b, new HashSet<>());
    }

    static int hash(Expr expr) { return hash(expr, new IdentityHashMap<>()); }

    /// Two nodes compared by identity, for the set of pairs already found equal (or being compared).
    private record Pair(Expr a, Expr b) {
        public boolean equals(Object o) { return o instanceof Pair p && a == p.a && b == p.b; }
        public int hashCode() { return 31 * System.identityHashCode(a) + System.identityHashCode(b); }
    }

    private static boolean equal(Expr a, Expr b, Set<Pair> equalPairs) {
        if (a == b) return true;
        if (a.getClass() != b.getClass() || !sameAttributes(a, b)) return false;
        if (Expr.isLeaf(a)) return a.equals(b);
        if (!equalPairs.add(new Pair(a, b))) return true;
        List<Expr> left = Expr.operands(a), right = Expr.operands(b);
        for (int i = 0; i < left.size(); i++)
            if (!equal(left.get(i), right.get(i), equalPairs)) return false;
        return true;
    }

    /// Everything but the operands: the operator, a cast's dtype, a shared value's id.
    private static boolean sameAttributes(Expr a, Expr b) {
        return switch (a) {
            case Expr.Unary u -> u.op() == ((Expr.Unary) b).op();
            case Expr.Binary binary -> binary.op() == ((Expr.Binary) b).op();
            case Expr.Cast cast -> cast.dtype() == ((Expr.Cast) b).dtype();
            case Expr.Shared shared -> shared.id() == ((Expr.Shared) b).id();
            case Expr.Random random -> random.distribution() == ((Expr.Random) b).distribution() && random.dtype() == b.dtype();
            case Expr.Gather g -> g.input() == ((Expr.Gather) b).input() && g.stride() == ((Expr.Gather) b).stride() && g.limit() == ((Expr.Gather) b).limit() && g.dtype() == b.dtype();
            case Expr.Bits bits -> bits.dtype() == b.dtype();
            case Expr.Bitwise bitwise -> bitwise.op() == ((Expr.Bitwise) b).op();
            case Expr.Let let -> let.variable().equals(((Expr.Let) b).variable());
            case Expr.Fallback fallback -> fallback.op() == ((Expr.Fallback) b).op();
            case Expr.Where _, Expr.Fma _, Expr.Load _, Expr.Constant _, Expr.Index _, Expr.Accumulated _, Expr.Element _, Expr.Var _ -> true;
        };
    }

    private static int hash(Expr expr, Map<Expr, Integer> known) {
        if (Expr.isLeaf(expr)) return expr.hashCode();
        Integer cached = known.get(expr);
        if (cached != null) return cached;
        int hash = switch (expr) {
            case Expr.Unary u -> u.op().hashCode();
            case Expr.Binary b -> b.op().hashCode();
            case Expr.Cast c -> c.dtype().hashCode();
            case Expr.Shared s -> s.id();
            case Expr.Where _ -> 7;
            case Expr.Fma _ -> 11;
            case Expr.Bits bits -> bits.dtype().hashCode();
            case Expr.Bitwise bitwise -> bitwise.op().hashCode();
            case Expr.Let let -> let.variable().hashCode();
            case Expr.Fallback fallback -> 13 * fallback.op().hashCode();
            case Expr.Random r -> 31 * r.distribution().ordinal() + r.dtype().ordinal();
            case Expr.Gather g -> (31 * g.input() + g.stride()) * 31 + g.dtype().ordinal();
            case Expr.Load _, Expr.Constant _, Expr.Index _, Expr.Accumulated _, Expr.Element _, Expr.Var _ -> throw new IllegalStateException("leaf");
        };
        for (Expr operand : Expr.operands(expr)) hash = 31 * hash + hash(operand, known);
        known.put(expr, hash);
        return hash;
    }
}
