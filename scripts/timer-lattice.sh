#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Which measured tables sit on a timing lattice, and how much of the error on them lies within it.
#
# Some collectors' latencies are not continuous: on the Blackwell GPUs the aiconfigurator attention tables take
# values k x 2.05 us + c, whatever the op. For every (family, GPU, framework) this finds the period tau in
# [1, 3] us that concentrates the rows under 30 us most (the length R of the mean of exp(2 pi i x / tau): 1 when
# every row lies on one lattice, near 0 for continuous times) and, where R >= 0.5, prints the protocol MAPE of
# `synperf eval <family>` beside the error left once a prediction within tau / 2 of the recorded time counts as
# exact: the part of the error no model of the kernel's time can remove from these rows.
#   usage: scripts/timer-lattice.sh [SYNPERF_BINARY] [DATA_DIR] [FAMILY ...]
#   (default: build/tools/synperf; $SYNPERF_DATA or ../shared/data; attention_decode attention_prefill gemm)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
synperf="${1:-$root/build/tools/synperf}"
data="${2:-${SYNPERF_DATA:-$root/../shared/data}}"
shift $(( $# < 2 ? $# : 2 ))
families=("$@")
[[ ${#families[@]} -gt 0 ]] || families=(attention_decode attention_prefill gemm)
[[ -x "$synperf" ]] || { echo "timer-lattice: no synperf binary at $synperf (build it first)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

printf '| family | GPU | framework | split | rows | lattice R | period us | MAPE %% | beyond half a period %% |\n'
printf '|---|---|---|---|---:|---:|---:|---:|---:|\n'
for family in "${families[@]}"; do
  "$synperf" eval "$family" --data "$data" --dump "$work/$family.csv" > /dev/null
  awk -F, -v family="$family" '
    function concentration(key, tau,    i, c, s, x) {
      c = 0; s = 0
      for (i = 1; i <= ns[key]; ++i) { x = 6.283185307179586 * sample[key, i] / tau; c += cos(x); s += sin(x) }
      return sqrt(c * c + s * s) / ns[key]
    }
    NR == 1 { for (i = 1; i <= NF; ++i) if (!($i in col)) col[$i] = i; next }
    { key = $col["gpu"] "|" $col["framework"] "|" $col["split"]
      m = $col["measured_us"] + 0; p = $col["predicted_us"] + 0
      n[key]++; measured[key, n[key]] = m; predicted[key, n[key]] = p
      if (m < 30) { short[key]++; if (short[key] % 8 == 1) sample[key, ++ns[key]] = m } }
    END {
      for (key in n) {
        best_r = 0; best_tau = 0
        if (ns[key] >= 50) {
          for (tau = 1.0; tau <= 3.0001; tau += 0.02) { r = concentration(key, tau); if (r > best_r) { best_r = r; best_tau = tau } }
          lo = best_tau - 0.02; hi = best_tau + 0.02
          for (tau = lo; tau <= hi + 1e-9; tau += 0.001) { r = concentration(key, tau); if (r > best_r) { best_r = r; best_tau = tau } }
        }
        mape = 0; beyond = 0
        for (i = 1; i <= n[key]; ++i) {
          m = measured[key, i]; p = predicted[key, i]; d = p - m; if (d < 0) d = -d
          mape += d / m
          if (best_r >= 0.5) { q = d - best_tau / 2; if (q > 0) beyond += q / m }
        }
        split(key, f, "|")
        if (best_r >= 0.5)
          printf "| %s | %s | %s | %s | %d | %.2f | %.3f | %.1f | %.1f |\n", family, f[1], f[2], f[3], n[key], best_r, best_tau,
                 100 * mape / n[key], 100 * beyond / n[key]
        else
          printf "| %s | %s | %s | %s | %d | %.2f | — | %.1f | — |\n", family, f[1], f[2], f[3], n[key], best_r, 100 * mape / n[key]
      }
    }' "$work/$family.csv" | sort
done
