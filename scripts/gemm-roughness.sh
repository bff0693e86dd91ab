#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# How rough each bf16 GEMM table is along m: every collector times a grid of m for each (n, k), and the latency
# of one m is compared with the log-log interpolation of its two neighbours. If the true latency were smooth
# there and the three measurements independent with the same scatter, that scatter would be the mean distance
# divided by sqrt(1.5) (the middle point's own, plus half of each neighbour's): the "implied scatter" column, an
# estimate of what a model that follows a smooth curve scores at best. Tile and split-K switches between two
# neighbours also count as roughness, so it is an upper bound on the timer's own noise, not on a model's error.
# Compare the seen rows of `synperf eval gemm` with the training GPUs' lines.
#   usage: scripts/gemm-roughness.sh [DATA_DIR]   (default: $SYNPERF_DATA or ../shared/data)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
data="${1:-${SYNPERF_DATA:-$root/../shared/data}}"
[[ -d "$data/aiconfigurator" ]] || { echo "gemm-roughness: expected $data/aiconfigurator" >&2; exit 1; }

printf '| GPU | collector | interior points | mean abs(ln(t / neighbours'"'"' interpolation)) %% | implied scatter %% |\n'
printf '|---|---|---:|---:|---:|\n'
for table in "$data"/aiconfigurator/*/gemm_perf.csv "$data"/aiconfigurator_sglang/*/gemm_perf.csv; do
  [[ -f "$table" ]] || continue
  gpu="$(basename "$(dirname "$table")")"
  case "$table" in */aiconfigurator_sglang/*) collector=sglang ;; */rtx_5090/*) collector=vllm ;; *) collector=trtllm ;; esac
  awk -F, '
    { sub(/\r$/, "") }  # SGLang'"'"'s tables end their lines with CRLF
    FNR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
    $col["gemm_dtype"] == "bfloat16" && $col["latency"] > 0 { print $col["n"], $col["k"], $col["m"], $col["latency"] }' "$table" |
    sort -k1,1n -k2,2n -k3,3n |
    awk -v gpu="$gpu" -v collector="$collector" '
      # Three consecutive m of one (n, k): a, b, c. The middle time against the line through its neighbours in log-log.
      { key = $1 " " $2; lm = log($3); lt = log($4)
        if (key == k1 && key == k2 && lm > m2 && m2 > m1) {
          f = (m2 - m1) / (lm - m1); d = t2 - (t1 + (lt - t1) * f); s += (d < 0 ? -d : d); ++n }
        k1 = k2; m1 = m2; t1 = t2; k2 = key; m2 = lm; t2 = lt }
      END { if (n > 0) printf "| %s | %s | %d | %.1f | %.1f |\n", gpu, collector, n, 100 * s / n, 100 * s / n / sqrt(1.5) }'
done
