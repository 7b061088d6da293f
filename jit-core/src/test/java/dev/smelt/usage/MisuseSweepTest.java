// SPDX-License-Identifier: Apache-2.0
package dev.smelt.usage;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.WeightFormat;
import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/// Random calls of every public Tensor method with edge-case arguments (extreme and negative
/// ints, NaN and infinite doubles, empty, 0-d, strided, bool and expanded operands), eagerly,
/// traced and compiled: each returns or throws a [SmeltException] with the op and this test's
/// line, never another exception (an OutOfMemoryError for a legal size the heap cannot hold
/// aside). This sweep found the int overflows in flatten and codegen's RowExtent;
/// `-Dsweep.calls=20000 -Dsweep.seed=…` runs a longer one.
class MisuseSweepTest {
    private static final int[] INTS = {Integer.MIN_VALUE, -65536, -3, -2, -1, 0, 1, 2, 3, 65536, Integer.MAX_VALUE};
    private static final double[] DOUBLES = {Double.NaN, Double.NEGATIVE_INFINITY, -1, 0, 1e-5, 2.5, Double.POSITIVE_INFINITY};
    private static final List<Tensor> OPERANDS = List.of(Tensor.scalar(2), Tensor.zeros(0), Tensor.arange(3), Tensor.ones(2, 3),
            Tensor.ones(1, 3, 1), Tensor.zeros(DType.BOOL, 2, 3), Tensor.arange(6).reshape(2, 3), Tensor.ones(DType.F64, 3, 2),
            Tensor.ones(2, 3).t(), Tensor.zeros(1).expand(65536, 1), Tensor.zeros(0, Integer.MAX_VALUE));
    private static final List<Method> METHODS = Arrays.stream(Tensor.class.getMethods())
            .filter(method -> method.getDeclaringClass() != Object.class).toList();

    @Test
    void everyCallReturnsOrThrowsASmeltException() {
        long seed = Long.getLong("sweep.seed", 2026);
        var random = new Random(seed);
        for (int call = 0, calls = Integer.getInteger("sweep.calls", 600); call < calls; call++) {
            Method method = METHODS.get(random.nextInt(METHODS.size()));
            Object[] arguments = Arrays.stream(method.getParameterTypes()).map(type -> argument(type, random)).toArray();
            Tensor receiver = OPERANDS.get(random.nextInt(OPERANDS.size()));
            int mode = random.nextInt(3);
            try {
                switch (mode) {
                    case 0 -> invoke(method, receiver, arguments);
                    case 1 -> Jit.trace(x -> invoke(method, x, arguments), receiver);
                    default -> Jit.compile((Tensor x) -> invoke(method, x, arguments)).apply(receiver);
                }
            } catch (SmeltException e) {
                assertTrue(e.getMessage().startsWith(e.op() + ": ") && e.getMessage().contains("(at dev.smelt.usage.MisuseSweepTest"), e.getMessage());
            } catch (OutOfMemoryError e) {
                assertTrue("Java heap space".equals(e.getMessage()), e::toString); // a legal size the heap cannot hold is no size error
            } catch (RuntimeException | Error e) {
                fail("seed %d, call %d: %s %s on %s%s with %s threw %s".formatted(seed, call, List.of("eager", "traced", "compiled").get(mode),
                        method.getName(), receiver.dtype(), receiver.shape(), Arrays.deepToString(arguments), e), e);
            }
        }
    }

    // Tensor results are returned (a trace needs one); other results, and void, give the receiver.
    private static Tensor invoke(Method method, Tensor receiver, Object[] arguments) {
        try {
            Object result = method.invoke(Modifier.isStatic(method.getModifiers()) ? null : receiver, arguments);
            return result instanceof Tensor tensor ? tensor : receiver;
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException runtime) throw runtime;
            if (e.getCause() instanceof Error error) throw error;
            throw new AssertionError(e.getCause());
        } catch (IllegalAccessException e) {
            throw new AssertionError(e);
        }
    }

    // einsum specs: valid, mismatched and malformed.
    private static final String[] SPECS = {"ij", "ij,jk->ik", "ii", "...", "i,i", "", "ab->ba", "1", "->", "i...j,...->", "ij,ij,ij"};

    // Arrays of ints are short and mostly small, so no call allocates more than a few megabytes.
    private static Object argument(Class<?> type, Random random) {
        if (type == int.class) return INTS[random.nextInt(INTS.length)];
        if (type == double.class) return DOUBLES[random.nextInt(DOUBLES.length)];
        if (type == boolean.class) return random.nextBoolean();
        if (type == int[].class) return random.ints(random.nextInt(4), 0, 8).map(i -> i < 6 ? i - 2 : INTS[random.nextInt(INTS.length)]).toArray();
        if (type == Tensor.class) return OPERANDS.get(random.nextInt(OPERANDS.size()));
        if (type == Tensor[].class) return new Tensor[] {OPERANDS.get(random.nextInt(OPERANDS.size())), OPERANDS.get(random.nextInt(OPERANDS.size()))};
        if (type == List.class) return List.of(OPERANDS.get(random.nextInt(OPERANDS.size())), OPERANDS.get(random.nextInt(OPERANDS.size())));
        if (type == Number.class) return random.nextBoolean() ? (Number) INTS[random.nextInt(INTS.length)] : (Number) DOUBLES[random.nextInt(DOUBLES.length)];
        if (type == DType.class) return DType.values()[random.nextInt(DType.values().length)];
        if (type == Generator.class) return new Generator(random.nextLong());
        if (type == float[].class) return new float[random.nextInt(7)];
        if (type == double[].class) return new double[random.nextInt(7)];
        if (type == boolean[].class) return new boolean[random.nextInt(7)];
        if (type == String.class) return SPECS[random.nextInt(SPECS.length)];
        if (type == WeightFormat.class) return WeightFormat.values()[random.nextInt(WeightFormat.values().length)];
        throw new AssertionError("no random " + type.getSimpleName() + ": add one for the new method's parameter");
    }
}
