// SPDX-License-Identifier: Apache-2.0
package dev.smelt.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Tensor;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import jdk.jshell.JShell;
import jdk.jshell.Snippet;
import jdk.jshell.SnippetEvent;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/// A scripted JShell session as the README's `-Djshell` command opens it: Smelt on the class path,
/// the start-up script loaded; tensors print, lambdas typed at the prompt compile, `@Compile`
/// classes declared at the prompt work, and a data-dependent branch gets Smelt's error.
class JShellSessionTest {
    private static final ByteArrayOutputStream OUT = new ByteArrayOutputStream();
    private static JShell shell;

    @BeforeAll
    static void openSession() throws Exception {
        shell = JShell.builder().out(new PrintStream(OUT, true)).err(new PrintStream(OUT, true))
                .compilerOptions("--add-modules", "jdk.incubator.vector")
                .remoteVMOptions("--add-modules=jdk.incubator.vector")
                .build();
        for (Class<?> type : List.of(Tensor.class, org.objectweb.asm.ClassWriter.class))
            shell.addToClasspath(new File(type.getProtectionDomain().getCodeSource().getLocation().toURI()).getPath());
        String script = Files.readString(Path.of("src/main/jshell/smelt.jsh"));
        for (String snippet : snippets(script)) assertEquals("", eval(snippet).errors, snippet);
    }

    @AfterAll
    static void closeSession() { shell.close(); }

    /// What one input produced: its value, or its exception's message, and its compile errors.
    record Result(String value, String exception, String errors) {}

    private static Result eval(String input) {
        String value = null, exception = null;
        var errors = new ArrayList<String>();
        for (SnippetEvent event : shell.eval(input)) {
            if (event.value() != null) value = event.value();
            if (event.exception() != null) exception = event.exception().getMessage();
            if (event.status() == Snippet.Status.REJECTED)
                shell.diagnostics(event.snippet()).forEach(d -> errors.add(d.getMessage(null)));
        }
        return new Result(value, exception, String.join("\n", errors));
    }

    /// The script cut into complete snippets, as JShell's own start-up loader does.
    private static List<String> snippets(String script) {
        var result = new ArrayList<String>();
        String rest = script;
        while (!rest.isBlank()) {
            var info = shell.sourceCodeAnalysis().analyzeCompletion(rest);
            if (!info.completeness().isComplete()) throw new AssertionError("incomplete snippet: " + rest);
            result.add(info.source());
            rest = info.remaining();
        }
        return result;
    }

    /// The value of `input`, which must compile and run without an exception.
    private static String value(String input) {
        Result result = eval(input);
        assertEquals("", result.errors(), input);
        assertEquals(null, result.exception(), input);
        return result.value();
    }

    /// What `input` printed; the remote JVM's output arrives asynchronously, up to its last line `until`.
    private static String printed(String input, String until) throws InterruptedException {
        OUT.reset();
        value(input);
        for (int wait = 0; wait < 100 && !OUT.toString().contains(until); wait++) Thread.sleep(50);
        return OUT.toString();
    }

    @Test
    void tensorsPrintReadably() {
        String value = eval("Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3)").value();
        assertEquals(Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3).toString(), value);
        assertTrue(value.startsWith("tensor([[1") && value.endsWith("shape=[2,3], dtype=f32)"), value);
    }

    @Test
    void aLambdaTypedAtThePromptCompiles() throws InterruptedException {
        value("var twice = Jit.compile((Tensor a) -> a.mul(2).add(1));");
        assertEquals("tensor([3., 5., 7.], shape=[3], dtype=f32)".replace(" ", ""),
                value("twice.apply(Tensor.of(new float[] {1, 2, 3}, 3))").replace(" ", ""));
        String explained = printed("explain(twice)", "bytes moved");
        assertTrue(explained.contains("kernels: 1 (unfused: 2)"), explained);
        value("twice.apply(Tensor.ones(5))");
        String reason = value("twice.recompiles().getFirst().toString()");
        assertTrue(reason.contains("argument 0: shape [3] → [5]"), reason);
    }

    @Test
    void aCompileClassDeclaredAtThePromptCompiles() {
        assertEquals("", eval("""
                public static class Scale {
                    @Compile public Tensor forward(Tensor x, int k) { return x.mul(k).relu(); }
                }""").errors());
        value("Scale model = Jit.instance(MethodHandles.lookup(), Scale.class);");
        String value = value("model.forward(Tensor.of(new float[] {-1, 2}, 2), 3)");
        assertEquals("tensor([0.,6.],shape=[2],dtype=f32)", value.replace(" ", ""), value);
    }

    @Test
    void aDataDependentBranchIsRefused() {
        var result = eval("Jit.compile((Tensor a) -> a.sum().item() > 0 ? a : a.neg()).apply(Tensor.ones(2))");
        assertTrue(result.exception() != null && result.exception().contains("item: cannot read the values of a traced tensor"), String.valueOf(result));
    }

    @Test
    void theStartupScriptDefinesItsHelpers() {
        var names = shell.methods().map(method -> method.name()).collect(Collectors.toSet());
        assertTrue(names.containsAll(List.of("explain", "recompiles")), names.toString());
    }
}
