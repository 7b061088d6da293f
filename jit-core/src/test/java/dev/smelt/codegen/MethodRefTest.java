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
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.Vector;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.tree.MethodNode;

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
    void aMissingMethodFailsWhenCodeCallingItIsEmitted() {
        var plus = MethodRef.of(FloatVector.class, "plus", Vector.class); // resolved on first use, so no error yet
        var error = assertThrows(IllegalStateException.class, () -> plus.invoke(new MethodNode()));
        assertTrue(error.getMessage().contains("jdk.incubator.vector.FloatVector.plus"), error.getMessage());
        var missing = FieldRef.of(FloatVector.class, "SPECIES_1024");
        assertThrows(IllegalStateException.class, () -> missing.get(new MethodNode()));
    }

    /// Resolution waits for first use (see [MethodRef]), so this test is where a typo in a table fails:
    /// every method and field of every table resolves.
    @Test
    void everyTableEntryResolves() throws IllegalAccessException {
        int resolved = 0;
        for (Class<?> table : List.of(VectorApi.class, JavaApi.class, MicroKernelEmitter.class))
            for (Field field : table.getDeclaredFields())
                if (Modifier.isStatic(field.getModifiers())) {
                    field.setAccessible(true);
                    resolved += resolve(field.get(null));
                }
        assertTrue(resolved > 100, resolved + " entries");
    }

    // Resolves `value` if it is an entry, or each entry in it (a row of VectorApi.Methods, a map); the count.
    private static int resolve(Object value) throws IllegalAccessException {
        return switch (value) {
            case MethodRef method -> { method.descriptor(); yield 1; }
            case FieldRef field -> { field.descriptor(); yield 1; }
            case Record row -> {
                int count = 0;
                for (RecordComponent component : row.getClass().getRecordComponents()) {
                    try {
                        count += resolve(component.getAccessor().invoke(row));
                    } catch (InvocationTargetException e) {
                        throw new AssertionError(e.getCause());
                    }
                }
                yield count;
            }
            case Map<?, ?> map -> {
                int count = 0;
                for (Object entry : map.values()) count += resolve(entry);
                yield count;
            }
            case null, default -> 0;
        };
    }

    /// The arithmetic of vector kernels calls `lanewise` with the operator, never a shorthand such as
    /// `add` whose own dispatch C2 inlines only by a profile shared by the whole JVM (MethodRef#lanewise):
    /// each emits `GETSTATIC VectorOperators.<OP>`, the stack shuffle that puts it under the operands,
    /// and `INVOKEVIRTUAL lanewise`.
    @Test
    void vectorArithmeticCallsLanewiseWithItsOperator() {
        for (var dtype : DType.values()) {
            var methods = VectorApi.of(dtype);
            var calls = Map.of("ADD", methods.add(), "SUB", methods.sub(), "MUL", methods.mul(), "DIV", methods.div(), "MAX", methods.max(), "MIN", methods.min(),
                    "NEG", methods.neg(), "ABS", methods.abs());
            calls.forEach((operator, call) -> assertEmitsLanewise(operator, call, operator.equals("NEG") || operator.equals("ABS") ? 0 : 1));
        }
        assertEmitsLanewise("FMA", VectorApi.FLOAT_FMA, 2);
        assertEmitsLanewise("FMA", VectorApi.DOUBLE_FMA, 2);
    }

    private static void assertEmitsLanewise(String operator, MethodRef call, int operands) {
        var method = new MethodNode();
        call.invoke(method);
        var instructions = method.instructions.toArray();
        var field = (org.objectweb.asm.tree.FieldInsnNode) instructions[0];
        assertEquals("jdk/incubator/vector/VectorOperators." + operator, field.owner + "." + field.name, call.toString());
        assertEquals(operands == 0 ? List.of() : operands == 1 ? List.of(org.objectweb.asm.Opcodes.SWAP) : List.of(org.objectweb.asm.Opcodes.DUP_X2, org.objectweb.asm.Opcodes.POP),
                Arrays.stream(instructions, 1, instructions.length - 1).map(org.objectweb.asm.tree.AbstractInsnNode::getOpcode).toList(), call.toString());
        var invoke = (org.objectweb.asm.tree.MethodInsnNode) instructions[instructions.length - 1];
        assertEquals("lanewise", invoke.name, call.toString());
        assertEquals(INVOKEVIRTUAL, invoke.getOpcode());
    }

    @Test
    void everySymbolTableResolves() {
        assertEquals(List.of(ByteVector.class, IntVector.class, FloatVector.class, DoubleVector.class),
                Arrays.stream(DType.values()).map(dtype -> VectorApi.of(dtype).vector()).toList());
        for (var op : UnaryOp.values()) {
            switch (op) {
                case NEG, ABS, RSQRT, RECIPROCAL, SQUARE, RELU, STOP_GRADIENT -> assertThrows(IllegalArgumentException.class, () -> JavaApi.function(op));
                case EXP, EXPM1, LOG, LOG1P, SQRT, SIN, COS, TANH, SIGMOID, GELU_TANH, GELU_ERF, SILU, SOFTPLUS, SIGN ->
                        assertEquals("(D)D", JavaApi.function(op).descriptor());
            }
        }
        assertEquals("jdk/incubator/vector/VectorOperators", VectorApi.operator(UnaryOp.TANH).owner());
    }
}
