// SPDX-License-Identifier: Apache-2.0
package dev.smelt.examples;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Printer;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import java.util.List;

/// Placeholder demo: builds `relu(x * y + x)` as graph IR by hand and prints it. It will trace the
/// same function from `Tensor` code and run it compiled once the front end lands.
public final class Demo {
    public static void main(String[] args) {
        var x = new Node.Input(0, Shape.of(1024), DType.F32);
        var y = new Node.Input(1, Shape.of(1024), DType.F32);
        Node body = new Node.Unary(UnaryOp.RELU, new Node.Binary(BinaryOp.ADD, new Node.Binary(BinaryOp.MUL, x, y), x));
        System.out.println("Smelt: relu(x * y + x) as graph IR");
        System.out.print(Printer.print(new Graph(List.of(x, y), List.of(body))));
    }
}
