#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Turns a JMH JSON result file from benchmarks/ into Markdown: a table of timings per benchmark
class, then the issue's targets with PASS or FAIL.

    java -jar benchmarks/target/benchmarks.jar ChainBench -rf json -rff results.json
    python3 benchmarks/report.py results.json [more.json…]

Times are medians: JMH's 50th percentile over iterations (avgt), samples (sample) or forks (ss).
Comparisons are like for like: compiledInto (Compiled.applyInto) against handWritten and triad, which
all write into an array allocated once; compiled against handWrittenNewArray and PyTorch, which all
allocate their result.
A target holds at the sizes it names; at other sizes its row shows the value and says "info".
MISSING: a benchmark the target needs is not in the file (not run, or its agreement check threw).
Exits with 1 if a target fails or is missing.
"""
import json
import math
import sys

M1, M16 = 1 << 20, 1 << 24
PYTORCH_CHAIN_MS = {M1: 3.6, M16: 260.0}  # PyTorch 1.13 eager, one thread, this machine
PYTORCH_CHAIN_SPEEDUP = {M1: 2, M16: 10}  # compiled must be this many times faster
HAND_CHAIN_MS = {M1: 1.5, M16: 24.0}      # the issue's hand-written Vector API loop
C_CHAIN_MS = {M1: 0.77}                   # C with glibc's vector math
PYTORCH_ROW_MS = {"softmax": 4.0, "layerNorm": 3.8}
STREAM_GBS = {1: 17.0, 2: 27.0}           # STREAM triad on one core, on two
TO_MS = {"s/op": 1e3, "ms/op": 1.0, "us/op": 1e-3, "ns/op": 1e-6}


def load(path):
    rows = []
    for result in json.load(open(path)):
        group, method = result["benchmark"].removeprefix("dev.smelt.benchmarks.").rsplit(".", 1)
        metric = result["primaryMetric"]
        scale = TO_MS[metric["scoreUnit"]]
        error = float(metric["scoreError"])  # JMH writes "NaN" when there is one sample
        error = 0 if math.isnan(error) else error
        rows.append(dict(group=group, method=method,
                         params={k: int(v) if v.isdigit() else v for k, v in result.get("params", {}).items()},
                         median=metric["scorePercentiles"]["50.0"] * scale, mean=metric["score"] * scale,
                         error=error * scale, samples=samples(metric),
                         secondary={name: m["score"] for name, m in result.get("secondaryMetrics", {}).items()}))
    return rows


def samples(metric):
    """How many numbers the median is of: iterations or shots, or, in sample mode, samples."""
    if "rawDataHistogram" in metric:
        return sum(count for fork in metric["rawDataHistogram"] for iteration in fork for _, count in iteration)
    return sum(len(fork) for fork in metric["rawData"])


def median(rows, group, method, /, **params):
    """The median time in ms of one benchmark, or None if it is not in the results."""
    return next((r["median"] for r in rows if r["group"] == group and r["method"] == method
                 and all(r["params"].get(k) == v for k, v in params.items())), None)


def gbs(method, size, ms):
    """Bytes moved over time: a·b+c reads three arrays and writes one (16 bytes per element);
    STREAM counts 12 for its triad (b and c read, a written)."""
    return None if ms is None else (12 if method == "triad" else 16) * size / (ms * 1e-3) / 1e9


def ratio(a, b):
    return None if a is None or b is None else a / b


def fmt(ms):
    return f"{ms * 1e3:.3g} µs" if ms < 0.1 else f"{ms:.3g} ms" if ms < 100 else f"{ms:,.0f} ms"


def params_text(params):
    return " ".join(f"{k}={v}" for k, v in params.items())


def timings(rows):
    memory = rows[0]["group"].startswith("MemoryBoundBench")
    lines = ["| method | params | median | mean ± error | n |" + (" GB/s |" if memory else ""),
             "|---|---|---|---|---|" + ("---|" if memory else "")]
    for r in rows:
        rate = f" {gbs(r['method'], r['params']['size'], r['median']):.1f} |" if memory else ""
        lines.append(f"| {r['method']} | {params_text(r['params'])} | {fmt(r['median'])} "
                     f"| {fmt(r['mean'])}{' ± ' + fmt(r['error']) if r['error'] else ''} | {r['samples']} |{rate}")
    return lines


class Checks:
    """Rows of a targets table. `goal` is the target as text, `ok` its test; without them, or where
    `applies` is false, the row is for information."""

    def __init__(self):
        self.lines = ["| check | params | value | target | result |", "|---|---|---|---|---|"]
        self.failures = 0

    def add(self, name, params, value, show, goal="—", ok=None, applies=True):
        if ok is None or not applies:
            result = "info"
        elif value is None:
            result = "MISSING"
        else:
            result = "PASS" if ok(value) else "FAIL"
        self.failures += result in ("FAIL", "MISSING")
        self.lines.append(f"| {name} | {params} | {'—' if value is None else show(value)} | {goal} | {result} |")


def times(value):
    return f"{value:.3g}×"


def chain(checks, rows):
    for size in sorted({r["params"]["size"] for r in rows if r["group"] == "ChainBench"}):
        compiled, into, eager, hand, hand_new = (median(rows, "ChainBench", m, size=size) for m in
                                                 ("compiled", "compiledInto", "eager", "handWritten", "handWrittenNewArray"))
        p = f"size={size}"
        checks.add("compiledInto / handWritten (preallocated)", p, ratio(into, hand), times,
                   "≤ 1.1× (1M, 16M)", lambda v: v <= 1.1, size in (M1, M16))
        checks.add("compiled / handWrittenNewArray (allocating)", p, ratio(compiled, hand_new), times)
        checks.add("eager / compiled", p, ratio(eager, compiled), times, "≥ 2× (16M)", lambda v: v >= 2, size == M16)
        if size in PYTORCH_CHAIN_MS:
            speedup = PYTORCH_CHAIN_SPEEDUP[size]
            checks.add(f"PyTorch 1.13 {PYTORCH_CHAIN_MS[size]:g} ms / compiled", p, ratio(PYTORCH_CHAIN_MS[size], compiled),
                       times, f"≥ {speedup}×", lambda v: v >= speedup)
            checks.add(f"issue's hand loop {HAND_CHAIN_MS[size]:g} ms / handWritten", p, ratio(HAND_CHAIN_MS[size], hand), times)
        if size in C_CHAIN_MS:
            checks.add(f"C vector math {C_CHAIN_MS[size]} ms / compiled", p, ratio(C_CHAIN_MS[size], compiled), times)


def memory(checks, rows):
    for group, threads in (("MemoryBoundBench.OneThread", 1), ("MemoryBoundBench.TwoThreads", 2)):
        for size in sorted({r["params"]["size"] for r in rows if r["group"] == group}):
            compiled, into, triad = (gbs(m, size, median(rows, group, m, size=size)) for m in ("compiled", "compiledInto", "triad"))
            p = f"threads={threads} size={size}"
            checks.add("compiledInto GB/s / triad GB/s (preallocated)", p, ratio(into, triad), "{:.0%}".format,
                       "≥ 80% (16M)", lambda v: v >= 0.8, size == M16)
            checks.add("compiled GB/s / triad GB/s (compiled allocates)", p, ratio(compiled, triad), "{:.0%}".format)
            checks.add(f"triad GB/s / STREAM's {STREAM_GBS[threads]:g} GB/s", p, ratio(triad, STREAM_GBS[threads]), "{:.0%}".format)


def row_ops(checks, rows):
    shapes = [dict(p) for p in dict.fromkeys(tuple(r["params"].items()) for r in rows if r["group"] == "RowOpsBench")]
    for params in shapes:
        compiled, into, eager = (median(rows, "RowOpsBench", m, **params) for m in ("compiled", "compiledInto", "eager"))
        issue_shape = (params["rows"], params["cols"]) == (4096, 1024) and params["op"] in PYTORCH_ROW_MS  # causalSoftmax: informational
        p = params_text(params)
        checks.add("compiled", p, compiled, fmt, "≤ 2.5 ms ([4096,1024])", lambda v: v <= 2.5, issue_shape)
        checks.add("eager / compiled", p, ratio(eager, compiled), times, "≥ 2× ([4096,1024])", lambda v: v >= 2, issue_shape)
        checks.add("compiledInto (preallocated)", p, into, fmt)
        if issue_shape:
            pytorch = PYTORCH_ROW_MS[params["op"]]
            checks.add(f"PyTorch 1.13 {pytorch:g} ms / compiled", p, ratio(pytorch, compiled), times)


def compile_latency(checks, rows):
    # The issue's first-call target is for a freshly compiled function (a new kernel, whose code
    # starts interpreted) in a warm JVM, beside the warm compile latency; a fresh JVM's first call
    # also loads the compiler itself and is reported for information.
    for method, goal, ok, sizes in (("compileLatency", "< 5 ms", lambda v: v < 5, None),
                                    ("firstCallWarmJvm", "< 50 ms (1M)", lambda v: v < 50, {M1}),
                                    ("firstCall", "— (fresh JVM)", lambda v: True, set())):
        found = [r for r in rows if r["group"] == "CompileBench" and r["method"] == method]
        for r in found:
            size = r["params"]["size"]
            checks.add(f"{method} median", f"size={size}", r["median"], fmt, goal, ok, sizes is None or size in sizes)
        if not found:
            checks.add(f"{method} median", "—", None, fmt, goal, ok)


def fusion(checks, rows):
    graphs = list(dict.fromkeys(r["params"]["graph"] for r in rows if r["group"] == "FusionBench"))
    strictly = 0
    for graph in graphs:
        cost, greedy, none = (median(rows, "FusionBench", "run", graph=graph, mode=m) for m in ("COST_MODEL", "GREEDY", "NONE"))
        best = None if greedy is None or none is None else min(greedy, none)
        checks.add("cost model / best of greedy, none", f"graph={graph}", ratio(cost, best), times, "≤ 1.1×", lambda v: v <= 1.1)
        checks.add("  times: cost model, greedy, none", f"graph={graph}", (cost, greedy, none),
                   lambda v: ", ".join("—" if t is None else fmt(t) for t in v))
        if None not in (cost, greedy, none) and cost < greedy and cost < none:
            strictly += 1
    checks.add("graphs where the cost model beats both", f"{len(graphs)} graphs", strictly, str, "≥ 2", lambda v: v >= 2, len(graphs) > 0)


CALIBRATION_BYTES = 4 << 24  # 16M f32
CACHED = 1 << 16


def calibration(checks, rows):
    t = {r["params"]["op"]: r["median"] * 1e6 for r in rows if r["group"] == "CalibrationBench"}  # ns
    def per(op, base, n, divide=1):
        return None if op not in t or base not in t else (t[op] - t[base]) / n / divide
    weights = [("READ_NS_PER_BYTE", None if "read" not in t else t["read"] / CALIBRATION_BYTES),
               ("WRITE_NS_PER_BYTE", per("copy", "read", CALIBRATION_BYTES)),
               ("LAUNCH_NS", t.get("launch")),
               ("STRIDED_READ_NS_PER_BYTE", None if "gather" not in t else t["gather"] / (64 << 10)),
               ("CHEAP_NS", per("add8", "neg", CACHED, 8)),
               ("DIVIDE_NS", per("div", "neg", CACHED)),
               ("EXP_NS", per("exp", "neg", CACHED)),
               ("SVML_NS", per("log", "neg", CACHED)),
               ("INLINE_TRIG_NS", per("sin", "neg", CACHED)),
               ("POW_NS", per("pow", "neg", CACHED))]
    for name, value in weights:
        checks.add(f"measured {name}", "one thread", value, lambda v: f"{v:.4g}")


MATMUL_GFLOPS = 85         # sgemm 1024³ on one thread (a hand-written Vector API kernel: 99, FMA peak 116)
TRAIN_STEP_MS = 2.5        # the MLP's SGD step at batch 128 on one thread (PyTorch 1.13: 2.8 ms)


def gflops(m, n, k, ms):
    """2·M·N·K floating-point operations over time."""
    return None if ms is None else 2 * m * n * k / (ms * 1e-3) / 1e9


def matmul(checks, rows):
    one = {}
    for group, threads in (("MatMulBench.Square.OneThread", 1), ("MatMulBench.Square.TwoThreads", 2)):
        for size in sorted({r["params"]["size"] for r in rows if r["group"] == group}):
            rate = gflops(size, size, size, median(rows, group, "sgemm", size=size))
            p = f"threads={threads} size={size}"
            if threads == 1:
                one[size] = rate
                checks.add("sgemm GFLOP/s", p, rate, "{:.1f}".format, f"≥ {MATMUL_GFLOPS} (1024)", lambda v: v >= MATMUL_GFLOPS, size == 1024)
            else:
                checks.add("sgemm GFLOP/s", p, rate, "{:.1f}".format)
                checks.add("two threads / one thread", p, ratio(rate, one.get(size)), times, "≥ 1.8× (1024)", lambda v: v >= 1.8, size == 1024)
    for shape in sorted({r["params"]["shape"] for r in rows if r["group"] == "MatMulBench.Mlp"}, key=lambda s: s != "128x784x256"):
        plain, fused, unfused, alone = (median(rows, "MatMulBench.Mlp", m, shape=shape) for m in ("matmul", "fused", "unfused", "epilogueOnly"))
        m, k, n = (int(d) for d in shape.split("x"))
        p = f"{m}×{k}·{k}×{n}"
        checks.add("x@w GFLOP/s", p, gflops(m, n, k, plain), "{:.1f}".format)
        # The issue's target is for its shape; the wide one shows where the epilogue's pass is worth fusing.
        checks.add("unfused / fused relu(x@w+b)", p, ratio(unfused, fused), times, "≥ 1.2×", lambda v: v >= 1.2, shape == "128x784x256")
        ceiling = None if plain is None or alone is None else (plain + alone) / plain
        checks.add("most fusion can gain: (x@w + epilogueOnly) / x@w", p, ceiling, times)
    for variant in ("transposeA", "transposeB", "both"):
        if any(r["group"] == "MatMulBench.Transposes" for r in rows):
            time, plain = (median(rows, "MatMulBench.Transposes", "sgemm", variant=v) for v in (variant, "plain"))
            checks.add(f"{variant} / plain", "size=1024", ratio(time, plain), times, "≤ 1.15×", lambda v: v <= 1.15)
    for size in sorted({r["params"]["size"] for r in rows if r["group"] == "MatMulBench.Tiny"}):
        compiled, kernel, naive = (median(rows, "MatMulBench.Tiny", m, size=size) for m in ("compiled", "kernelOnly", "naive"))
        p = f"size={size}"
        checks.add("compiled per call", p, compiled, fmt)
        checks.add("naive / compiled", p, ratio(naive, compiled), times, "≥ 5×", lambda v: v >= 5)
        checks.add("naive / kernelOnly (no Compiled.apply overhead)", p, ratio(naive, kernel), times)
        checks.add("compiled - kernelOnly (per-call overhead)", p, None if compiled is None or kernel is None else compiled - kernel, fmt)
        checks.add("overhead: compiled a+b on one element", p, median(rows, "MatMulBench.Tiny", "overhead", size=size), fmt)
        checks.add("overhead: eager a+b on one element", p, median(rows, "MatMulBench.Tiny", "eagerOverhead", size=size), fmt)


def training_step(checks, rows):
    """Issue 6: one SGD step of the MLP, compiled, against Smelt's unfused mode."""
    if any(r["group"] == "TrainStepBench" for r in rows):
        compiled, unfused, forward, compile_ms = (median(rows, "TrainStepBench", m) for m in ("compiled", "unfused", "forward", "compile"))
        p = "batch=128 hidden=512"
        checks.add("training step, compiled", p, compiled, fmt, f"≤ {TRAIN_STEP_MS} ms (PyTorch 1.13: 2.8 ms)", lambda v: v <= TRAIN_STEP_MS)
        checks.add("unfused / compiled", p, ratio(unfused, compiled), times, "> 1×", lambda v: v > 1)
        checks.add("forward alone (PyTorch 1.13: 1.1 ms)", p, forward, fmt)
        checks.add("compiling the step", p, compile_ms, fmt)


def steady_steps(checks, rows):
    """Issue 18: a training step loads no class after the first and allocates ≤ 4 KB beyond what it
    returns (a double); the bytes are `-prof gc`'s gc.alloc.rate.norm, so they show only with it."""
    for r in (r for r in rows if r["group"] == "AdamStepBench"):
        p = params_text(r["params"])
        classes, allocated = r["secondary"].get("classesLoaded"), r["secondary"].get("gc.alloc.rate.norm")
        checks.add("classes loaded per iteration", p, classes, lambda v: f"{v:.0f}", "0", lambda v: v == 0)
        checks.add("bytes allocated per step", p, allocated, lambda v: f"{v:,.0f} B", "≤ 4,096 B (with -prof gc)", lambda v: v <= 4096,
                   applies=allocated is not None)


def matmul_backward(checks, rows):
    """Issue 6: a matmul's forward and backward (two more products) against its forward."""
    if any(r["group"] == "MatMulBackwardBench" for r in rows):
        forward, both = (median(rows, "MatMulBackwardBench", m) for m in ("forward", "forwardBackward"))
        checks.add("forwardBackward / forward", "n=1024", ratio(both, forward), times, "≤ 3.2× (PyTorch 1.13: 3×)", lambda v: v <= 3.2)


def split(checks, rows):
    """Two threads against one for a mid-size kernel, with the other thread awake and after it parked."""
    for method in ("backToBack", "afterIdle"):
        for size in sorted({r["params"]["size"] for r in rows if r["group"].startswith("SplitBench")}, key=int):
            one, two = (median(rows, f"SplitBench.{g}", method, size=size) for g in ("OneThread", "TwoThreads"))
            checks.add(f"{method}: one thread / two", f"size={size}", ratio(one, two), times)


def main(paths):
    rows = [row for path in paths for row in load(path)]
    failures = 0
    for group in dict.fromkeys(r["group"] for r in rows):
        print(f"## {group}\n\n" + "\n".join(timings([r for r in rows if r["group"] == group])) + "\n")
    for prefix, add in (("ChainBench", chain), ("MemoryBoundBench", memory), ("RowOpsBench", row_ops), ("CompileBench", compile_latency),
                        ("FusionBench", fusion), ("CalibrationBench", calibration),
                        ("MatMulBench", matmul), ("TrainStepBench", training_step), ("AdamStepBench", steady_steps),
                        ("MatMulBackwardBench", matmul_backward), ("SplitBench", split)):
        if any(r["group"].startswith(prefix) for r in rows):
            checks = Checks()
            add(checks, rows)
            print(f"## Targets: {prefix}\n\n" + "\n".join(checks.lines) + "\n")
            failures += checks.failures
    print(f"{failures} target(s) failed or missing." if failures else "Every target that applies passed.")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: report.py results.json…   (written by: java -jar benchmarks.jar -rf json -rff results.json)")
    sys.exit(main(sys.argv[1:]))
