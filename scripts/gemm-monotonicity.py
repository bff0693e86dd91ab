#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How often a GEMM gets faster with more tokens: predicted (every catalogue GPU) and measured (every bf16 table).

For each weight shape (n, k), walk the token counts m upwards and count the points more than 5 % faster than the
slowest smaller m of the same shape; "worst" is the smallest such ratio. cuBLAS switches tiles and split-K between
neighbouring m, so a drop is not by itself an error: the measured tables, read at the same weight shapes where they
have them, say how large cuBLAS's own drops are.

usage: scripts/gemm-monotonicity.py SYNPERF_BINARY [DATA_DIR]
  DATA_DIR: $SYNPERF_DATA or ../shared/data; the measured part is skipped when it has no GEMM tables.
"""
import collections
import csv
import glob
import os
import subprocess
import sys
import tempfile

# Projections of common models (per TP rank) and a large vocabulary head.
SHAPES = [(4096, 4096), (12288, 4096), (4096, 11008), (8192, 8192), (28672, 8192), (8192, 28672), (1024, 8192),
          (128256, 4096), (7168, 2048), (2560, 7168)]
TOKENS = list(range(1, 65)) + [80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 640, 768, 896, 1024, 1280,
                                1536, 1792, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768]
SLACK = 0.95


def drops(series):
    """(points, points more than 5 % below a smaller m's time, worst ratio and where) of {shape: [(m, t)]}."""
    points = below = 0
    worst = (1.0, None)
    for shape, values in series.items():
        values.sort()
        slowest = None
        for m, t in values:
            points += 1
            if slowest is not None:
                ratio = t / slowest[1]
                if ratio < SLACK:
                    below += 1
                if ratio < worst[0]:
                    worst = (ratio, (shape, slowest[0], m))
            if slowest is None or t > slowest[1]:
                slowest = (m, t)
    return points, below, worst


def row(name, points, below, worst):
    where = ""
    if worst[1] is not None:
        (n, k), m_from, m_to = worst[1]
        where = f"n {n}, k {k}: m {m_from} -> {m_to}"
    return f"| {name} | {points} | {below} | {100.0 * below / max(points, 1):.1f} | {worst[0]:.2f} | {where} |"


def predicted(binary):
    with tempfile.TemporaryDirectory() as tmp:
        shapes = os.path.join(tmp, "shapes.csv")
        with open(shapes, "w") as f:
            f.write("m,n,k\n")
            for n, k in SHAPES:
                for m in TOKENS:
                    f.write(f"{m},{n},{k}\n")
        run = subprocess.run([binary, "predict", "gemm", "--gpu", "all", "--csv", shapes], capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"gemm-monotonicity: {binary} predict gemm failed:\n{run.stderr}")
        out = run.stdout
    per_gpu = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in csv.DictReader(out.splitlines()):
        per_gpu[r["gpu"]][(int(r["n"]), int(r["k"]))].append((int(r["m"]), float(r["latency_us"])))
    print("Predicted (shipped model, serving: weights from DRAM)")
    print("| GPU | points | > 5 % faster than a smaller m | % | worst ratio | where |")
    print("|---|---:|---:|---:|---:|---|")
    for gpu, series in per_gpu.items():
        print(row(gpu, *drops(series)))


def measured(data):
    tables = sorted(glob.glob(os.path.join(data, "aiconfigurator*", "*", "gemm_perf.csv")))
    if not tables:
        print(f"\nMeasured: no gemm_perf.csv under {data}; skipped")
        return
    print("\nMeasured (bf16 rows of the same weight shapes; each collector's timing loop, see docs/families/gemm.md)")
    print("| table | points | > 5 % faster than a smaller m | % | worst ratio | where |")
    print("|---|---:|---:|---:|---:|---|")
    for table in tables:
        series = collections.defaultdict(list)
        with open(table, newline="") as f:
            for r in csv.DictReader(f):
                shape = (int(r["n"]), int(r["k"]))
                if r["gemm_dtype"] == "bfloat16" and shape in SHAPES:
                    series[shape].append((int(r["m"]), float(r["latency"])))
        print(row(os.path.relpath(table, data), *drops(series)))


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__[__doc__.index("usage:"):].rstrip())
    if not (os.path.isfile(sys.argv[1]) and os.access(sys.argv[1], os.X_OK)):
        sys.exit(f"gemm-monotonicity: {sys.argv[1]} is not an executable synperf binary")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    data = sys.argv[2] if len(sys.argv) == 3 else os.environ.get("SYNPERF_DATA", os.path.join(root, "..", "shared", "data"))
    predicted(sys.argv[1])
    measured(data)


if __name__ == "__main__":
    main()
