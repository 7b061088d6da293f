// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

/// Evaluates a [MatMulKernel] with the [KernelInterpreter]'s arithmetic (products summed in double,
/// rounded once; the epilogue per op), work item by work item: the reference that generated
/// matmuls are tested against.
public final class MatMulInterpreter implements KernelFunction {
    private final MatMulKernel kernel;
    private final KernelInterpreter loops;

    public MatMulInterpreter(MatMulKernel kernel) {
        this.kernel = kernel;
        this.loops = new KernelInterpreter(kernel.asLoops());
    }

    /// Each item's block of rows and columns; a row of the loop kernel is one `[…, m, n]`.
    @Override
    public void run(Object[] buffers, int start, int end) {
        int rows = kernel.rows(), columns = kernel.columns(), units = kernel.unitsPerBatch();
        boolean alongRows = kernel.alongRows();
        int unitColumns = kernel.unitColumns();
        for (int unit = start; unit < end; unit++) {
            int batch = unit / units, item = unit % units;
            int top = alongRows ? item * MatMulKernel.UNIT_ROWS : 0, bottom = alongRows ? Math.min(rows, top + MatMulKernel.UNIT_ROWS) : rows;
            int first = alongRows ? 0 : item * unitColumns, last = alongRows ? columns : Math.min(columns, first + unitColumns);
            for (int m = top; m < bottom; m++) {
                int row = (batch * rows + m) * columns;
                loops.run(buffers, row + first, row + last);
            }
        }
    }
}
