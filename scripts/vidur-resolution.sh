#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# How much of the error on Vidur's rows lies within their timing resolution. Vidur's profiler records each kernel's
# duration in whole microseconds, so a row of "2 us" is any time from 1.5 to 2.5 us (the median of 20 whole-us
# samples is a whole or half microsecond). This prints, per (family, GPU), the protocol MAPE of
# `synperf eval <family>` beside the error left once a prediction inside [measured - 0.5, measured + 0.5] us counts
# as exact: the part of the error no model can remove from these rows. The last two columns are the rows' repeatability:
# Vidur times a shape again for every model and TP degree that gives it (RMSNorm's hidden size is not sharded), and
# the error of predicting each row by the median of the rows with the same GPU, split and inputs (every column of the
# dump but the measured time) is what a model of these inputs cannot go below; it is taken over the rows that have
# repeats, and the column before it says how many rows those are.
#   usage: scripts/vidur-resolution.sh [SYNPERF_BINARY] [DATA_DIR]
#   (default: build/tools/synperf; $SYNPERF_DATA or ../shared/data)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
synperf="${1:-$root/build/tools/synperf}"
data="${2:-${SYNPERF_DATA:-$root/../shared/data}}"
[[ -x "$synperf" ]] || { echo "vidur-resolution: no synperf binary at $synperf (build it first)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

printf '| family | GPU | split | Vidur rows | whole-us rows %% | MAPE %% | beyond the 1 us resolution %% | rows with repeats %% | their error from the median %% |\n|---|---|---|---:|---:|---:|---:|---:|---:|\n'
for family in rmsnorm silu_mul elementwise; do
  "$synperf" eval "$family" --data "$data" --dump "$work/$family.csv" > /dev/null
  # One line per Vidur row: its inputs (the key of its repeats), its GPU and split, measured and predicted time.
  awk -F, '
    NR == 1 { for (i = 1; i <= NF; ++i) if (!($i in col)) col[$i] = i; next }
    $col["framework"] != "vidur" && $col["framework"] != "vllm" { next }
    { m = $col["measured_us"]; $col["measured_us"] = ""
      printf "%s\t%s|%s\t%s\t%s\n", $0, $col["gpu"], $col["split"], m, $col["predicted_us"] }' OFS=, "$work/$family.csv" |
    LC_ALL=C sort -t "$(printf '\t')" -k1,1 -k3,3g |
    awk -F '\t' -v family="$family" '
      function close_group(   i, med) {
        if (g == 0) return
        med = g % 2 ? v[(g + 1) / 2] : (v[g / 2] + v[g / 2 + 1]) / 2
        if (g > 1) repeated[gk] += g
        for (i = 1; i <= g; ++i) spread[gk] += (v[i] > med ? v[i] - med : med - v[i]) / v[i]
        g = 0 }
      $1 != last { close_group(); last = $1; gk = $2 }
      { key = $2; m = $3; p = $4; v[++g] = m
        e = (p - m) / m; lo = m - 0.5; hi = m + 0.5
        q = p < lo ? (lo - p) / m : (p > hi ? (p - hi) / m : 0)
        n[key]++; mape[key] += (e < 0 ? -e : e); beyond[key] += q; whole[key] += (m == int(m)) }
      END { close_group()
            for (k in n) { split(k, f, "|")
              printf "| %s | %s | %s | %d | %.0f | %.1f | %.1f | %.0f | %s |\n", family, f[1], f[2], n[k], 100 * whole[k] / n[k],
                     100 * mape[k] / n[k], 100 * beyond[k] / n[k], 100 * repeated[k] / n[k],
                     repeated[k] ? sprintf("%.1f", 100 * spread[k] / repeated[k]) : "-" } }' | sort
done
