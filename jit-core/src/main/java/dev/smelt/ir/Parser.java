// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/// Reads the text [Printer] writes back into a [Graph]: `Printer.print(Parser.parse(text))` is
/// `text` for every printed graph.
///
/// Each node line ends in its type, `: f32[2,3]`. Reshape and expand take their target shape from
/// it, cast its dtype, const, iota, rand and randn both; every line's type must equal what its operator infers.
/// Hand-written text may name nodes freely (`%x`), but defines each before its first use. Equal
/// lines become one node, as the tracer's hash-consing makes them, so the result prints canonically.
/// Errors are `IllegalArgumentException`s reading `line N: what is wrong: the line`.
public final class Parser {
    /// Every name the text defines, with the line that defines it first.
    private final Map<String, Integer> definitions = new HashMap<>();
    private final Map<String, Node> values = new HashMap<>();
    private final Map<Node, Node> canonical = new HashMap<>();

    private Parser() {}

    public static Graph parse(String text) {
        var all = text.lines().toList();
        var lines = new ArrayList<Line>();
        for (int index = 0; index < all.size(); index++)
            if (!all.get(index).isBlank()) lines.add(new Line(index + 1, all.get(index).strip()));
        if (lines.size() < 3)
            throw new IllegalArgumentException("line %d: a graph needs a header, a return line and '}': %s"
                    .formatted(all.size(), lines.isEmpty() ? "" : lines.getLast().text()));
        return new Parser().graph(lines);
    }

    private Graph graph(List<Line> lines) {
        Line header = lines.getFirst(), end = lines.getLast(), returns = lines.get(lines.size() - 2);
        if (!end.text().equals("}")) throw end.error("expected '}' to end the graph", null);
        var body = lines.subList(1, lines.size() - 2);
        for (var line : body) definitions.putIfAbsent(line.text().split("\\s+", 2)[0], line.number());
        var inputs = header.read(() -> header(header.text()));
        for (var line : body) line.read(() -> define(new Statement(line.text())));
        return new Graph(inputs, returns.read(() -> outputs(returns.text())));
    }

    /// `graph(%0: f32[2,3], %1: i32[]) {`; the slot of an input is its position.
    private List<Node.Input> header(String text) {
        Check.that(text.startsWith("graph(") && text.endsWith(") {"), "expected 'graph(%%0: type, …) {'");
        String list = text.substring("graph(".length(), text.length() - ") {".length()).strip();
        var inputs = new ArrayList<Node.Input>();
        for (String declaration : list.isEmpty() ? new String[0] : list.split(",\\s*(?=%)")) {
            String[] parts = declaration.split(":", 2);
            Check.that(parts.length == 2 && parts[0].strip().startsWith("%"), "malformed input declaration '%s'", declaration);
            var type = Type.parse(parts[1].strip());
            var input = new Node.Input(inputs.size(), type.shape(), type.dtype());
            bind(parts[0].strip(), input);
            inputs.add(input);
        }
        return inputs;
    }

    /// `return %4, %5`
    private List<Node> outputs(String text) {
        Check.that(text.startsWith("return ") && !text.substring(7).isBlank(), "expected 'return %%name, …'");
        return Arrays.stream(text.substring(7).strip().split(",\\s*")).map(this::value).toList();
    }

    private Node define(Statement statement) {
        Node node = build(statement);
        statement.finish();
        Check.that(node.shape().equals(statement.type.shape()) && node.dtype() == statement.type.dtype(),
                "type %s does not match the inferred %s", statement.type, Printer.type(node));
        Node known = canonical.putIfAbsent(node, node);
        bind(statement.name, known != null ? known : node);
        return values.get(statement.name);
    }

    private Node build(Statement s) {
        return switch (s.op) {
            case "const" -> new Node.Constant(s.number(), s.type.shape(), s.type.dtype());
            case "iota" -> new Node.Iota(s.integer("axis"), s.type.shape(), s.type.dtype());
            case "where" -> new Node.Where(operand(s, 3, 0), operand(s, 3, 1), operand(s, 3, 2));
            case "cast" -> new Node.Cast(operand(s, 1, 0), s.type.dtype());
            case "checkindex" -> new Node.IndexCheck(operand(s, 1, 0), new IndexBounds(s.word("op"), s.word("what"), s.integer("limit")));
            case "matmul" -> new Node.MatMul(operand(s, 2, 0), operand(s, 2, 1), s.flag("transpose_a"), s.flag("transpose_b"));
            case "reshape" -> new Node.Reshape(operand(s, 1, 0), s.type.shape());
            case "permute" -> new Node.Permute(operand(s, 1, 0), s.integers("order"));
            case "expand" -> new Node.Expand(operand(s, 1, 0), s.type.shape());
            case "slice" -> new Node.Slice(operand(s, 1, 0), s.integer("axis"), s.integer("start"), s.integer("stop"), s.integer("step"));
            case "concat" -> new Node.Concat(s.operands.stream().map(this::value).toList(), s.integer("axis"));
            case "rand" -> new Node.Random(Distribution.UNIFORM, operand(s, 1, 0), s.type.shape(), s.type.dtype());
            case "randn" -> new Node.Random(Distribution.NORMAL, operand(s, 1, 0), s.type.shape(), s.type.dtype());
            case "gather" -> new Node.Gather(operand(s, 2, 0), s.integer("axis"), operand(s, 2, 1));
            case "scatter" -> new Node.Scatter(operand(s, 3, 0), s.integer("axis"), operand(s, 3, 1), operand(s, 3, 2), s.flag("add"));
            case "argsort" -> new Node.ArgSort(operand(s, 1, 0), s.integer("axis"), s.flag("descending"));
            case "sliceupdate" -> new Node.SliceUpdate(operand(s, 3, 0), s.integer("axis"), operand(s, 3, 1), operand(s, 3, 2));
            case "attention" -> new Node.Attention(AttentionPart.parse(s.word("part")), s.operands.stream().map(this::value).toList(), s.flag("causal"), s.real("scale"));
            case "input" -> throw new IllegalArgumentException("inputs are declared in the graph header, not as lines");
            default -> elementwiseOrReduce(s);
        };
    }

    private Node elementwiseOrReduce(Statement s) {
        if (named(UnaryOp.values(), s.op) instanceof UnaryOp op) return new Node.Unary(op, operand(s, 1, 0));
        if (named(BinaryOp.values(), s.op) instanceof BinaryOp op) return new Node.Binary(op, operand(s, 2, 0), operand(s, 2, 1));
        if (named(ReduceOp.values(), s.op) instanceof ReduceOp op) return new Node.Reduce(op, operand(s, 1, 0), s.integers("axes"));
        throw new IllegalArgumentException("unknown op '" + s.op + "'");
    }

    private static <E extends Enum<E>> E named(E[] values, String name) {
        for (E value : values)
            if (value.toString().equals(name)) return value;
        return null;
    }

    /// Operand `index` of a line that must have exactly `count` of them.
    private Node operand(Statement s, int count, int index) {
        Check.that(s.operands.size() == count, "%s takes %d operand%s, not %d", s.op, count, count == 1 ? "" : "s", s.operands.size());
        return value(s.operands.get(index));
    }

    private Node value(String name) {
        Node node = values.get(name);
        if (node != null) return node;
        Integer line = definitions.get(name);
        throw new IllegalArgumentException(line == null ? "undefined " + name : name + " is used before its definition on line " + line);
    }

    private void bind(String name, Node node) {
        Check.that(name.startsWith("%") && name.length() > 1, "expected a %%name, not '%s'", name);
        Check.that(values.putIfAbsent(name, node) == null, "%s is defined twice", name);
    }

    /// One non-blank line, stripped, with its 1-based number in the text.
    private record Line(int number, String text) {
        IllegalArgumentException error(String what, Throwable cause) {
            return new IllegalArgumentException("line %d: %s: %s".formatted(number, what, text), cause);
        }

        /// Runs `parse`, prefixing any error with this line.
        <T> T read(Supplier<T> parse) {
            try {
                return parse.get();
            } catch (IllegalArgumentException e) {
                throw error(e.getMessage(), e);
            }
        }
    }

    /// A dtype and shape, written `f32[2,3]` (`f32[]` for a scalar).
    record Type(DType dtype, Shape shape) {
        static Type parse(String text) {
            int open = text.indexOf('[');
            Check.that(open > 0 && text.endsWith("]"), "bad type '%s'", text);
            try {
                String dims = text.substring(open + 1, text.length() - 1);
                var shape = dims.isEmpty() ? Shape.SCALAR : new Shape(Statement.integerList(dims));
                return new Type(DType.parse(text.substring(0, open)), shape);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("bad type '%s' (%s)".formatted(text, e.getMessage()), e);
            }
        }

        @Override
        public String toString() { return dtype + shape.toString(); }
    }
}
