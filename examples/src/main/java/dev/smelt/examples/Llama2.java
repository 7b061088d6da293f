// SPDX-License-Identifier: Apache-2.0
package dev.smelt.examples;

import dev.smelt.Generator;
import dev.smelt.models.llama.Llama2Checkpoint;
import dev.smelt.models.llama.Llama2Config;
import dev.smelt.models.llama.Llama2Sampler;
import dev.smelt.models.llama.Llama2Tokenizer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;

/// Text from a llama2.c checkpoint, as `run.c` prints it: `-Dcheckpoint=stories15M.bin
/// -Dtokenizer=tokenizer.bin -Dprompt="Once upon a time" -Dsteps=256 -Dtemperature=1 -Dtopp=0.9
/// -Dseed=…`. Without a checkpoint it writes a random stories15M-shaped one (60 MB, into
/// `target/`) and a toy vocabulary, so the command runs on a fresh machine: the text is then noise,
/// but the speed is the real model's. Prints the time to the first token and tokens per second.
public final class Llama2 {
    private Llama2() {}

    public static void main(String[] args) throws IOException {
        long start = System.nanoTime();
        Path checkpoint = Path.of(setting("checkpoint", "target/stories15M-random.bin"));
        Path vocabulary = Path.of(setting("tokenizer", "target/tokenizer-toy.bin"));
        if (setting("checkpoint", null) == null) writeRandomModel(checkpoint, vocabulary);
        var model = new dev.smelt.models.llama.Llama2(Llama2Checkpoint.read(checkpoint));
        var tokenizer = Llama2Tokenizer.read(vocabulary, model.config().vocab());
        int steps = Integer.parseInt(setting("steps", "256"));
        var sampler = new Llama2Sampler(Double.parseDouble(setting("temperature", "1")), Double.parseDouble(setting("topp", "0.9")),
                Long.parseLong(setting("seed", Long.toString(System.nanoTime() | 1))));
        int[] prompt = tokenizer.encode(setting("prompt", ""), true, false);
        System.out.println(model.config() + ", " + steps + " steps");
        System.out.print(tokenizer.decode(prompt));
        long[] first = {0};
        int[] previous = {prompt[prompt.length - 1]};
        long decodeStart = System.nanoTime();
        int[] generated = model.generate(prompt, steps, sampler, token -> {
            if (first[0] == 0) first[0] = System.nanoTime();
            System.out.print(new String(tokenizer.decode(previous[0], token), java.nio.charset.StandardCharsets.UTF_8));
            System.out.flush();
            previous[0] = token;
        });
        long end = System.nanoTime();
        System.out.printf("%n%ntime to first token: %.0f ms after start (prefill of %d tokens included)%n", (first[0] - start) / 1e6, prompt.length);
        if (generated.length > 1) System.out.printf("achieved tok/s: %.1f (%d tokens after the first)%n", (generated.length - 1) / ((end - first[0]) / 1e9), generated.length - 1);
        System.out.printf("total %.1f s%n", (end - decodeStart) / 1e9);
    }

    // A -D setting; empty or absent means `fallback` (Maven passes every setting, empty when not given).
    private static String setting(String name, String fallback) {
        String value = System.getProperty(name, "");
        return value.isEmpty() ? fallback : value;
    }

    // A random stories15M-shaped checkpoint and a toy vocabulary of as many pieces, unless present.
    private static void writeRandomModel(Path checkpoint, Path vocabulary) throws IOException {
        var config = Llama2Config.STORIES_15M;
        if (!Files.exists(checkpoint) || Files.size(checkpoint) != config.fileBytes()) {
            Files.createDirectories(checkpoint.toAbsolutePath().getParent());
            System.out.println("writing a random " + config + " to " + checkpoint);
            Llama2Checkpoint.writeRandom(checkpoint, config, new Generator(15));
        }
        if (!Files.exists(vocabulary)) {
            var merges = new ArrayList<String>();
            for (int n = 0; merges.size() < config.vocab() - 259; n++) merges.add((n % 2 == 0 ? " " : "") + letters(n / 2));
            Llama2Tokenizer.toy(merges).write(vocabulary);
        }
    }

    // n in base 26 with digits a–z, from "ba" up: distinct pieces of two or more letters.
    private static String letters(int n) {
        var text = new StringBuilder();
        for (char digit : Integer.toString(n + 26, 26).toCharArray()) text.append((char) ('a' + Character.digit(digit, 26)));
        return text.toString();
    }
}
