// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objectweb.asm.Opcodes.INVOKEINTERFACE;
import static org.objectweb.asm.Opcodes.INVOKESTATIC;
import static org.objectweb.asm.Opcodes.INVOKEVIRTUAL;

import dev.smelt.ir.DType;
import dev.smelt.ir.UnaryOp;
import java.util.Arrays;
import java.util.List;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.Vector;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;
import org.junit.jupiter.api.Test;

class MethodRefTest {
    @Test
    void derivesTheInvokeInstructionFromReflection() {
        var loopBound = MethodRef.of(VectorSpecies.class, "loopBound", int.class);
        assertEquals(INVOKEINTERFACE, loopBound.opcode());
        assertTrue(loopBound.isInterface());
        var add = MethodRef.of(FloatVector.class, "add", Vector.class);
        assertEquals(INVOKEVIRTUAL, add.opcode());
        assertFalse(add.isInterface());
        assertEquals("(Ljdk/incubator/vector/Vector;)Ljdk/incubator/vector/FloatVector;", add.descriptor());
        var of = MethodRef.of(VectorSpecies.class, "of", Class.class, VectorShape.class);
        assertEquals(INVOKESTATIC, of.opcode());
        assertTrue(of.isInterface(), "a static interface method needs the interface flag");
        assertEquals(INVOKESTATIC, MethodRef.of(Math.class, "exp", double.class).opcode());
    }

    @Test
    void aMissingMethodFailsWhenTheTableIsBuilt() {
        var error = assertThrows(IllegalStateException.class, () -> MethodRef.of(FloatVector.class, "plus", Vector.class));
        assertTrue(error.getMessage().contains("jdk.incubator.vector.FloatVector.plus"), error.getMessage());
        assertThrows(IllegalStateException.class, () -> FieldRef.of(FloatVector.class, "SPECIES_1024"));
    }

    @Test
    void everySymbolTableResolves() {
        assertEquals(List.of(ByteVector.class, IntVector.class, FloatVector.class, DoubleVector.class),
                Arrays.stream(DType.values()).map(dtype -> VectorApi.of(dtype).vector()).toList());
        for (var op : UnaryOp.values()) {
            switch (op) {
                case NEG, ABS, RSQRT, RECIPROCAL, SQUARE, RELU -> assertThrows(IllegalArgumentException.class, () -> JavaApi.function(op));
                case EXP, EXPM1, LOG, LOG1P, SQRT, SIN, COS, TANH, SIGMOID, GELU_TANH, GELU_ERF, SILU, SOFTPLUS, SIGN ->
                        assertEquals("(D)D", JavaApi.function(op).descriptor());
            }
        }
        assertEquals("jdk/incubator/vector/VectorOperators", VectorApi.operator(UnaryOp.TANH).owner());
    }
}
