#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# How much of the error on Vidur's rows lies within their timing resolution. Vidur's profiler records each kernel's
# duration in whole microseconds, so a row of "2 us" is any time from 1.5 to 2.5 us (the median of 20 whole-us
# samples is a whole or half microsecond). This prints, per (family, GPU), the protocol MAPE of
# `synperf eval <family>` beside the error left once a prediction inside [measured - 0.5, measured + 0.5] us counts
# as exact: the part of the error no model can remove from these rows.
#   usage: scripts/vidur-resolution.sh [SYNPERF_BINARY] [DATA_DIR]
#   (default: build/tools/synperf; $SYNPERF_DATA or ../shared/data)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
synperf="${1:-$root/build/tools/synperf}"
data="${2:-${SYNPERF_DATA:-$root/../shared/data}}"
[[ -x "$synperf" ]] || { echo "vidur-resolution: no synperf binary at $synperf (build it first)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

printf '| family | GPU | split | Vidur rows | whole-us rows %% | MAPE %% | beyond the 1 us resolution %% |\n|---|---|---|---:|---:|---:|---:|\n'
for family in rmsnorm silu_mul elementwise; do
  "$synperf" eval "$family" --data "$data" --dump "$work/$family.csv" > /dev/null
  awk -F, -v family="$family" '
    NR == 1 { for (i = 1; i <= NF; ++i) if (!($i in col)) col[$i] = i; next }
    $col["framework"] != "vidur" && $col["framework"] != "vllm" { next }
    { key = $col["gpu"] "|" $col["split"]; m = $col["measured_us"]; p = $col["predicted_us"]
      e = (p - m) / m; lo = m - 0.5; hi = m + 0.5
      q = p < lo ? (lo - p) / m : (p > hi ? (p - hi) / m : 0)
      n[key]++; mape[key] += (e < 0 ? -e : e); beyond[key] += q; whole[key] += (m == int(m)) }
    END { for (k in n) { split(k, f, "|")
            printf "| %s | %s | %s | %d | %.0f | %.1f | %.1f |\n", family, f[1], f[2], n[k], 100 * whole[k] / n[k],
                   100 * mape[k] / n[k], 100 * beyond[k] / n[k] } }' "$work/$family.csv" | sort
done
