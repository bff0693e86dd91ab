#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Instructions per prediction of one benchmark (the GEMM, ragged-prefill and decode benches), counted by
# callgrind: repeatable on any machine, unlike time.
#
#   bash bench/instructions.sh 'bm_prefill_ragged_h100/8/0$' [build/bench/synperf_bench]
#
# Those benches predict through `predict_once`, kept out of line: its inclusive instructions divided by its
# calls. Building the predictor (parsing and compiling the embedded weights) is outside it. Needs valgrind.
set -euo pipefail
filter="${1:?usage: instructions.sh BENCHMARK_FILTER [BENCH_BINARY]}"
bench="${2:-build/bench/synperf_bench}"
out="$(mktemp)"
trap 'rm -f "$out" "$out.txt" "$out.log"' EXIT

valgrind --tool=callgrind --callgrind-out-file="$out" "$bench" --benchmark_filter="$filter" \
  --benchmark_min_time=0.3 >"$out.log" 2>&1 || { tail -20 "$out.log" >&2; exit 1; }
callgrind_annotate --inclusive=yes --tree=caller "$out" >"$out.txt" 2>/dev/null

# The function's own line ("1,234 (5.6%)  *  file:function") gives its inclusive count; the caller lines ("<")
# just above it give its calls as "(Nx)" (N with thousands separators).
read -r total calls < <(awk '/^$/ {n = 0}
  /  < / && match($0, /\([0-9,]+x\)/) {c = substr($0, RSTART + 1, RLENGTH - 3); gsub(",", "", c); n += c}
  /  \* .*predict_once</ {gsub(",", "", $1); print $1 + 0, n; exit}' "$out.txt") || true
if [[ -z "${total:-}" || "${calls:-0}" -eq 0 ]]; then
  echo "instructions.sh: no benchmark '$filter', or it does not predict through predict_once" >&2
  tail -5 "$out.log" >&2
  exit 1
fi
echo "$filter: $(( total / calls )) instructions per prediction ($calls predictions)"
