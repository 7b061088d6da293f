// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import dev.smelt.ir.Storage;
import dev.smelt.trace.Tracer;

/// What a `dev.smelt.Tensor` stands for, without its API: concrete storage viewed through shape,
/// strides and offset, or a node recorded by a tracer. The ops of this package take and return
/// values; the API above wraps each in exactly one tensor ([#wrapper]), so a tensor's identity
/// (the capture a trace reads, the parameter an optimiser updates) is its value's.
public final class Value {
    /// The most elements a tensor holds: the JDK's `ArraysSupport.SOFT_MAX_ARRAY_LENGTH`, the
    /// largest array every JVM allocates (`Tensor.MAX_SIZE` in the API).
    public static final int MAX_SIZE = Integer.MAX_VALUE - 8;

    private final Storage storage;
    private final Shape shape;
    private final int[] strides;
    private final int offset;
    private final Node node;
    private final Tracer tracer;
    private Object wrapper;

    /// Concrete: the elements of `storage` at `offset + Σ index·stride`.
    public Value(Storage storage, Shape shape, int[] strides, int offset) { this(storage, shape, strides, offset, null, null); }

    /// Traced: `node`, recorded by `tracer`.
    public Value(Node node, Tracer tracer) { this(null, node.shape(), null, 0, node, tracer); }

    private Value(Storage storage, Shape shape, int[] strides, int offset, Node node, Tracer tracer) {
        this.storage = storage;
        this.shape = shape;
        this.strides = strides;
        this.offset = offset;
        this.node = node;
        this.tracer = tracer;
    }

    /// A concrete value over all of `storage`, dense in row-major order.
    public static Value dense(Storage storage, Shape shape) { return new Value(storage, shape, shape.contiguousStrides(), 0); }

    public Shape shape() { return shape; }
    public DType dtype() { return node != null ? node.dtype() : storage.dtype(); }
    public int rank() { return shape.rank(); }
    public int size() { return shape.size(); }
    /// The size of `axis` (negative counts from the end).
    public int dim(int axis) { return shape.dim(Builder.axis("dim", axis, rank())); }
    public boolean isTraced() { return node != null; }
    public Storage storage() { return storage; }
    public int[] strides() { return strides; }
    public int offset() { return offset; }
    public Node node() { return node; }
    public Tracer tracer() { return tracer; }

    /// The API object standing for this value, or null before the API has wrapped it. A value is
    /// wrapped by the thread that made it, before it is shared, so plain reads suffice.
    public Object wrapper() { return wrapper; }

    /// Records the API object standing for this value; a value is wrapped once.
    public void wrapper(Object wrapper) {
        if (this.wrapper != null) throw new IllegalStateException("a value is wrapped once");
        this.wrapper = wrapper;
    }
}
