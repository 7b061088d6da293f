// SPDX-License-Identifier: Apache-2.0
import dev.smelt.Generator;
import dev.smelt.models.llama.Llama2Checkpoint;
import dev.smelt.models.llama.Llama2Config;
import dev.smelt.models.llama.Llama2Tokenizer;
import java.nio.file.Path;
import java.util.ArrayList;

/// Writes a random-weight llama2.c checkpoint (stories15M or stories110M shape) and a toy tokenizer
/// with the model's 32000 tokens (llama2.c's run.c reads as many as the checkpoint's vocabulary),
/// for run-llama2c.sh: `java … WriteRandomModel.java 15M model.bin tokenizer.bin`.
public class WriteRandomModel {
    public static void main(String[] args) {
        Llama2Config config = switch (args[0]) {
            case "15M" -> Llama2Config.STORIES_15M;
            case "110M" -> Llama2Config.STORIES_110M;
            default -> throw new IllegalArgumentException("shape " + args[0] + ": expected 15M or 110M");
        };
        Llama2Checkpoint.writeRandom(Path.of(args[1]), config, new Generator(2026));
        var merges = new ArrayList<String>();
        for (int i = 0; merges.size() + 259 < config.vocab(); i++) merges.add("t" + i); // 3 special and 256 byte tokens before them
        Llama2Tokenizer.toy(merges).write(Path.of(args[2]));
    }
}
