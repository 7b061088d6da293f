#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Digits end to end, process start to exit: Smelt (dev.smelt.benchmarks.Digits) against PyTorch 1.13
# (digits.py), the same 30 epochs of an MLP 64-128-10, alternating, RUNS times each (default 5);
# prints each run's wall time and the medians. Needs `apt-get install -y python3-sklearn python3-torch`
# and `mvn -B -q -pl benchmarks -am package -DskipTests`. With AOT=1, Smelt also runs with a JDK AOT
# cache recorded by one training run first.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-5}
DATA=${DATA:-/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz}
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
PYTHON=${PYTHON:-/usr/bin/python3}
JAR=benchmarks/target/benchmarks.jar
CACHE=benchmarks/target/digits.aot
smelt=("$JAVA" --add-modules jdk.incubator.vector -cp "$JAR" dev.smelt.benchmarks.Digits "$DATA")
pytorch=("$PYTHON" benchmarks/digits/digits.py "$DATA")
variants=(smelt pytorch)
if [[ ${AOT:-0} == 1 ]]; then
  "$JAVA" --add-modules jdk.incubator.vector -XX:AOTCacheOutput="$CACHE" -cp "$JAR" dev.smelt.benchmarks.Digits "$DATA" > /dev/null 2>&1
  smelt_aot=("$JAVA" --add-modules jdk.incubator.vector -XX:AOTCache="$CACHE" -cp "$JAR" dev.smelt.benchmarks.Digits "$DATA")
  variants+=(smelt_aot)
fi

echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A times
for ((run = 0; run < RUNS; run++)); do
  order=("${variants[@]}")
  ((run % 2)) && order=($(printf '%s\n' "${variants[@]}" | tac))
  for variant in "${order[@]}"; do
    declare -n command=$variant
    start=$(date +%s%N)
    output=$("${command[@]}" 2>&1 | grep -v '^WARNING: Using incubator modules')
    ms=$((($(date +%s%N) - start) / 1000000))
    times[$variant]+="$ms "
    echo "run $run $variant: $ms ms  $output"
  done
done
for variant in "${variants[@]}"; do
  sorted=($(printf '%s\n' ${times[$variant]} | sort -n))
  echo "median $variant: ${sorted[$((${#sorted[@]} / 2))]} ms (${sorted[*]})"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
