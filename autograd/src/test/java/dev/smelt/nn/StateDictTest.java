// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.SafeTensors;
import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// Module state dictionaries: PyTorch's dotted names, strict all-or-nothing loading, and loaded
/// values seen by compiled code that reads the parameters.
class StateDictTest {
    @TempDir Path directory;

    static Sequential mlp(long seed) {
        var g = new Generator(seed);
        return new Sequential(new Linear(4, 8, g), new Activations.ReLU(), new Linear(8, 3, g));
    }

    /// A module made of named parts, as a user writes one.
    record AutoEncoder(Sequential encoder, Linear head) implements Module {
        public Tensor forward(Tensor x) { return head.forward(encoder.forward(x)); }
        public Map<String, Parameter> namedParameters() { return Module.nest(List.of("encoder", "head"), List.of(encoder, head)); }
        public List<Parameter> parameters() { return List.copyOf(namedParameters().values()); }
    }

    @Test
    void namesFollowPyTorch() {
        var model = mlp(1);
        assertEquals(List.of("0.weight", "0.bias", "2.weight", "2.bias"), List.copyOf(model.namedParameters().keySet()));
        assertEquals(List.copyOf(model.namedParameters().values()), model.parameters());
        assertEquals(List.of("weight", "bias"), List.copyOf(new Linear(2, 2, new Generator(0)).stateDict().keySet()));
        var nested = new AutoEncoder(mlp(2), new Linear(3, 2, new Generator(3)));
        assertEquals(List.of("encoder.0.weight", "encoder.0.bias", "encoder.2.weight", "encoder.2.bias", "head.weight", "head.bias"),
                List.copyOf(nested.stateDict().keySet()));
        var deep = new Sequential(mlp(4), new Sequential(new Activations.Tanh(), new Linear(3, 1, new Generator(5))));
        assertEquals(List.of("0.0.weight", "0.0.bias", "0.2.weight", "0.2.bias", "1.1.weight", "1.1.bias"), List.copyOf(deep.stateDict().keySet()));
        assertSame(model.parameters().getFirst().value(), model.stateDict().get("0.weight"));  // live, as in PyTorch
    }

    @Test
    void aSharedLayerIsOneParameterUnderEachOfItsNames() {
        var tied = new Linear(2, 2, new Generator(1));
        var model = new Sequential(tied, new Activations.ReLU(), tied);
        // as PyTorch: parameters() and named_parameters() list it once, state_dict() under both names
        assertEquals(tied.parameters(), model.parameters());
        assertEquals(List.of("0.weight", "0.bias"), List.copyOf(model.namedParameters().keySet()));
        assertEquals(List.of("0.weight", "0.bias", "2.weight", "2.bias"), List.copyOf(model.stateDict().keySet()));
        assertSame(model.stateDict().get("0.weight"), model.stateDict().get("2.weight"));
        var nested = new AutoEncoder(model, tied);  // shared across parts, one of them nested
        assertEquals(List.of("encoder.0.weight", "encoder.0.bias"), List.copyOf(nested.namedParameters().keySet()));
        assertEquals(List.of("encoder.0.weight", "encoder.0.bias", "encoder.2.weight", "encoder.2.bias", "head.weight", "head.bias"),
                List.copyOf(nested.stateDict().keySet()));
        assertEquals(tied.parameters(), nested.parameters());

        var step = new dev.smelt.optim.SGD(model.parameters(), 0.1).compile(x -> model.forward(x).sum()); // once listed twice: refused
        float[] before = tied.weight().value().toFloatArray();
        step.apply(Tensor.ones(3, 2));
        assertTrue(!java.util.Arrays.equals(before, tied.weight().value().toFloatArray()));

        var other = new Linear(2, 2, new Generator(2));
        model.loadStateDict(new Sequential(other, new Activations.ReLU(), other).stateDict());
        assertArrayEquals(other.weight().value().toFloatArray(), tied.weight().value().toFloatArray());
        var partial = new LinkedHashMap<>(new Sequential(other, new Activations.ReLU(), other).stateDict());
        partial.remove("2.bias");
        var e = assertThrows(SmeltException.class, () -> model.loadStateDict(partial));
        assertTrue(e.getMessage().contains("missing 2.bias"), e.getMessage());
    }

    @Test
    void aModuleWithTwoParametersOfOneNameMustNameThem() {
        Module clash = new Module() {
            final Parameter a = new Parameter("weight", Tensor.ones(2)), b = new Parameter("weight", Tensor.ones(2));
            public Tensor forward(Tensor x) { return x.mul(a.value()).mul(b.value()); }
            public List<Parameter> parameters() { return List.of(a, b); }
        };
        var e = assertThrows(SmeltException.class, clash::stateDict);
        assertTrue(e.getMessage().contains("two parameters are named weight"), e.getMessage());
    }

    @Test
    void loadingCopiesIntoTheParametersAndCompiledForwardsSeeIt() {
        var model = mlp(1);
        var x = Tensor.randn(new Generator(9), 5, 4);
        var forward = Jit.compile(model::forward);
        var before = forward.apply(x).toFloatArray();
        var other = mlp(2);
        Path file = directory.resolve("mlp.safetensors");
        SafeTensors.save(file, other.stateDict());
        model.loadStateDict(SafeTensors.load(file));
        assertArrayEquals(other.forward(x).toFloatArray(), forward.apply(x).toFloatArray());
        assertArrayEquals(other.forward(x).toFloatArray(), model.forward(x).toFloatArray());
        assertTrue(!java.util.Arrays.equals(before, forward.apply(x).toFloatArray()));
        assertEquals(1, forward.compiledSignatures());
    }

    @Test
    void aDictionaryThatDoesNotMatchChangesNothingAndListsEveryFault() {
        var model = mlp(1);
        var good = mlp(2).stateDict();
        float[] before = model.stateDict().get("2.bias").toFloatArray();
        var bad = new LinkedHashMap<>(good);
        bad.remove("0.bias");
        bad.put("0.weight", Tensor.zeros(4, 8));                       // transposed
        bad.put("2.weight", good.get("2.weight").to(DType.F64));
        bad.put("fc.weight", Tensor.zeros(2));
        var e = assertThrows(SmeltException.class, () -> model.loadStateDict(bad));
        for (String fragment : List.of("nothing was loaded", "missing 0.bias", "unexpected fc.weight",
                "0.weight is f32[8,4] here but f32[4,8] in the dictionary", "2.weight is f32[3,8] here but f64[3,8]"))
            assertTrue(e.getMessage().contains(fragment), () -> "'" + fragment + "' missing from: " + e.getMessage());
        assertArrayEquals(before, model.stateDict().get("2.bias").toFloatArray()); // 2.bias matched but was not written
        var withNull = new HashMap<>(good);
        withNull.put("2.bias", null);
        assertThrows(SmeltException.class, () -> model.loadStateDict(withNull));
        assertThrows(SmeltException.class, () -> model.loadStateDict(null));
        assertArrayEquals(before, model.stateDict().get("2.bias").toFloatArray());
    }

    @Test
    void longListsOfFaultsAreCounted() {
        var many = new HashMap<String, Tensor>();
        for (int i = 0; i < 25; i++) many.put("extra" + i, Tensor.zeros(1));
        many.putAll(mlp(1).stateDict());
        var e = assertThrows(SmeltException.class, () -> mlp(2).loadStateDict(many));
        assertTrue(e.getMessage().contains("and 15 more"), e.getMessage());
    }
}
