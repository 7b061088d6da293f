// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

/// Runs an [UpdateKernel]: the reference and the compiled form alike, as the plain loops below
/// (a copy and a walk over the region, which C2 compiles well) leave nothing for generated code to
/// gain. Indices were checked before the program's first kernel (`Node.IndexCheck`).
public record UpdateFunction(UpdateKernel kernel) implements KernelFunction {
    @Override
    public String tier() { return "plain Java loops (not generated)"; }

    @Override
    public void run(Object[] buffers, int start, int end) {
        if (start >= end) return;
        Object base = buffers[0], out = buffers[3];
        int[] index = (int[]) buffers[1];
        if (out != base) System.arraycopy(base, 0, out, 0, kernel.shape().size());
        var region = kernel.region();
        int rank = region.rank(), axis = kernel.axis();
        if (region.size() == 0) return;
        int[] strides = kernel.shape().contiguousStrides();
        int axisStride = strides[axis];
        int offset = kernel.kind() == UpdateKernel.Kind.SLICE ? index[0] * axisStride : 0;
        int[] at = new int[rank];
        int inner = region.dim(rank - 1), innerStride = strides[rank - 1];
        // Row by row of the region's last axis, positions by an odometer over the outer axes.
        for (int p = 0; p < region.size(); p += inner) {
            int line = offset;
            for (int d = 0; d < rank - 1; d++) line += (d == axis && kernel.kind() != UpdateKernel.Kind.SLICE ? 0 : at[d] * strides[d]);
            row(buffers[2], out, index, p, line, inner, innerStride, axis == rank - 1 ? -1 : axisStride, axis == rank - 1 && kernel.kind() != UpdateKernel.Kind.SLICE);
            for (int d = rank - 2; d >= 0; d--) {
                if (++at[d] < region.dim(d)) break;
                at[d] = 0;
            }
        }
    }

    // One row of the region: source elements p … p + inner - 1, to out at line + j·innerStride, moved
    // along the axis by index·axisStride (a scatter off the last axis), or with j itself the index (on it).
    private void row(Object source, Object out, int[] index, int p, int line, int inner, int innerStride, int axisStride, boolean lastAxis) {
        boolean scatter = kernel.kind() != UpdateKernel.Kind.SLICE, add = kernel.kind() == UpdateKernel.Kind.SCATTER_ADD;
        for (int j = 0; j < inner; j++) {
            int target = lastAxis ? line + index[p + j] * innerStride : line + j * innerStride + (scatter ? index[p + j] * axisStride : 0);
            put(source, p + j, out, target, add);
        }
    }

    // out[target] = source[from], or += for an add (in the dtype: f32 sums round to f32, i32 wraps)
    private static void put(Object source, int from, Object out, int target, boolean add) {
        switch (source) {
            case float[] s -> ((float[]) out)[target] = add ? ((float[]) out)[target] + s[from] : s[from];
            case double[] s -> ((double[]) out)[target] = add ? ((double[]) out)[target] + s[from] : s[from];
            case int[] s -> ((int[]) out)[target] = add ? ((int[]) out)[target] + s[from] : s[from];
            case byte[] s -> ((byte[]) out)[target] = s[from];
            default -> throw new IllegalStateException("not a buffer: " + source);
        }
    }
}
