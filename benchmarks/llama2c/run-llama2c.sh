#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds llama2.c's run.c and runq.c (the public karpathy/llama2.c repository) into
# benchmarks/target/llama2c and runs them on a random-weight checkpoint that Smelt's
# Llama2Checkpoint.writeRandom writes (runq.c on that checkpoint in its Q8_0 format, groups of 32 as
# Smelt's INT8, written by ToQ8.java), with a toy tokenizer of the model's 32000 tokens, greedy, on
# one and two OpenMP threads: the decode tokens/s that Smelt's f32 and int8 decodes are compared
# with, on the same checkpoint and machine.
#
#   mvn -q -B -pl models,benchmarks -am package -DskipTests   # once: what WriteRandomModel.java runs on
#   benchmarks/llama2c/run-llama2c.sh [15M|110M] [steps]
#
# run.c and runq.c are taken from $LLAMA2C_RUN_C and $LLAMA2C_RUNQ_C if set, else downloaded from
# GitHub (master).
# Not part of the Maven build.
set -euo pipefail
shape=${1:-15M}
steps=${2:-256}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/benchmarks/target/llama2c
mkdir -p "$out"
java=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java

if [ -n "${LLAMA2C_RUN_C:-}" ]; then cp "$LLAMA2C_RUN_C" "$out/run.c"
elif [ ! -f "$out/run.c" ]; then curl -fsSL https://raw.githubusercontent.com/karpathy/llama2.c/master/run.c -o "$out/run.c"; fi
if [ -n "${LLAMA2C_RUNQ_C:-}" ]; then cp "$LLAMA2C_RUNQ_C" "$out/runq.c"
elif [ ! -f "$out/runq.c" ]; then curl -fsSL https://raw.githubusercontent.com/karpathy/llama2.c/master/runq.c -o "$out/runq.c"; fi
gcc -Ofast -march=native -fopenmp "$out/run.c" -lm -o "$out/run"
gcc -Ofast -march=native -fopenmp "$out/runq.c" -lm -o "$out/runq"

model=$out/stories$shape-random.bin
tokenizer=$out/tokenizer-toy.bin
if [ ! -f "$model" ] || [ ! -f "$tokenizer" ]; then
  classes=$root/benchmarks/target/benchmarks.jar:$root/models/target/classes  # jit-core with ASM, and the models
  [ -f "$root/benchmarks/target/benchmarks.jar" ] && [ -d "$root/models/target/classes" ] ||
    { echo "build first: mvn -q -B -pl models,benchmarks -am package -DskipTests" >&2; exit 1; }
  "$java" --add-modules jdk.incubator.vector -cp "$classes" "$root/benchmarks/llama2c/WriteRandomModel.java" "$shape" "$model" "$tokenizer"
fi

quantised=$out/stories$shape-random-q8.bin
[ -f "$quantised" ] || "$java" "$root/benchmarks/llama2c/ToQ8.java" "$model" "$quantised"

echo "chip: $(grep -m1 'cpu family' /proc/cpuinfo)"
for threads in 1 2; do
  for run in 1 2 3; do
    echo "load: $(uptime)"
    for program in run runq; do # alternating, so that both see the same minutes
      file=$model; [ "$program" = runq ] && file=$quantised
      rate=$(OMP_NUM_THREADS=$threads "$out/$program" "$file" -z "$tokenizer" -t 0 -n "$steps" -i "" 2>&1 >/dev/null | grep -o 'achieved tok/s: [0-9.]*')
      echo "llama2.c $program.c stories$shape, $threads thread(s), $steps steps, run $run: $rate"
    done
  done
done
