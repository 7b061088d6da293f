// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Generator;
import dev.smelt.models.llama.Llama2;
import dev.smelt.models.llama.Llama2Checkpoint;
import dev.smelt.models.llama.Llama2Config;
import java.nio.file.Files;
import java.nio.file.Path;

/// The first tokens of a fresh JVM, run by [ColdStart]: a random stories15M checkpoint (stories110M
/// with `-Dshape=stories110M`; written once to the temporary directory and reused) read as f32,
/// then one session decoding 256 tokens from position 0 (`firstToken`: the first, compile
/// included; `first256`: all 256), then a second session decoding the same 256 (`steady256`). The
/// gap between `first256` and `steady256` is what a program pays for starting cold. Threads: the
/// JVM's `-Dsmelt.threads`.
public final class FirstTokens {
    private FirstTokens() {}

    public static void main(String[] args) throws Exception {
        boolean large = "stories110M".equals(System.getProperty("shape"));
        Llama2Config config = large ? Llama2Config.STORIES_110M : Llama2Config.STORIES_15M;
        Path file = Path.of(System.getProperty("java.io.tmpdir"), "smelt-firsttokens-" + (large ? "110M" : "15M") + ".bin");
        if (!Files.exists(file)) {
            Path written = Files.createTempFile(file.getParent(), "smelt-firsttokens", ".part");
            Llama2Checkpoint.writeRandom(written, config, new Generator(1));
            Files.move(written, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        }
        long start = System.nanoTime();
        var model = new Llama2(Llama2Checkpoint.read(file));
        long loaded = System.nanoTime();
        var first = decode(model);
        var steady = decode(model);
        System.out.printf("load=%.1f firstToken=%.1f first256=%.1f steady256=%.1f%n", (loaded - start) / 1e6, first[0], first[1], steady[1]);
    }

    // Milliseconds to the first token and to all 256, in a new session; checks that the logits are finite.
    private static double[] decode(Llama2 model) {
        var session = model.session();
        long start = System.nanoTime();
        double firstToken = 0;
        for (int i = 0; i < 256; i++) {
            float logit = session.next(1 + i * 7919 % (model.config().vocab() - 1))[0];
            if (!Float.isFinite(logit)) throw new AssertionError("a non-finite logit at position " + i);
            if (i == 0) firstToken = (System.nanoTime() - start) / 1e6;
        }
        return new double[] {firstToken, (System.nanoTime() - start) / 1e6};
    }
}
