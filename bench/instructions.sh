#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Instructions per prediction of one benchmark whose predictions call the compiled MLP evaluator out of line
# (the ragged-prefill benches), counted by callgrind: repeatable on any machine, unlike time.
#
#   bash bench/instructions.sh 'bm_prefill_ragged_h100/8/0$' [build/bench/synperf_bench]
#
# Counts the benchmark function's instructions, less the one-off parse and compilation of the embedded weights,
# divided by the number of MLP evaluations (one per prediction). Needs valgrind.
set -euo pipefail
filter="${1:?usage: instructions.sh BENCHMARK_FILTER [BENCH_BINARY]}"
bench="${2:-build/bench/synperf_bench}"
out="$(mktemp)"
trap 'rm -f "$out" "$out.txt"' EXIT

valgrind --tool=callgrind --callgrind-out-file="$out" "$bench" --benchmark_filter="$filter" \
  --benchmark_min_time=0.05 >/dev/null 2>&1
callgrind_annotate --inclusive=yes --tree=caller "$out" >"$out.txt" 2>/dev/null

# Inclusive count of a function line ("1,234 (5.6%)  file:function"), 0 when absent.
inclusive() { { grep -F "  *  " "$out.txt" || true; } | { grep -F "$1" || true; } | head -1 |
  awk '{gsub(",", "", $1); print $1 + 0}'; }
bench_fn="$(echo "$filter" | sed 's|/.*||; s|\$||')"
total="$(inclusive "::${bench_fn}(benchmark::State&) [")"
parse="$(inclusive "mlp_parser::run() [")"
compile="$(inclusive "compiled_network::compiled_network(")"  # once per predictor, not per prediction
# Calls of the MLP evaluation: the "(Nx)" of the caller lines ("<") just above its own line ("*").
calls="$(awk '/^$/ {n = 0} /  < / && match($0, /\([0-9]+x\)/) {n += substr($0, RSTART + 1, RLENGTH - 3)}
              /  \* .*compiled_network::evaluate/ {print n; exit}' "$out.txt")"
calls="${calls:-0}"
if [[ "$total" -eq 0 || "$calls" -eq 0 ]]; then
  echo "instructions.sh: no benchmark '$filter' or no prediction in it" >&2
  exit 1
fi
echo "$filter: $(( (total - parse - compile) / calls )) instructions per prediction ($calls predictions)"
