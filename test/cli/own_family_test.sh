#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A family of one's own (examples/layernorm/layernorm_family.hpp) added to the built-in list in one line
# (test/own_family/main.cpp): the command line over that list trains it, evaluates it leave-one-GPU-out and predicts
# with it, as it does a built-in family.
#
#   own_family_test.sh SYNPERF_WITH_LAYERNORM WORK_DIR
set -euo pipefail
synperf="$1"
work="$2"
rm -rf "$work" && mkdir -p "$work/data"
fail() { echo "own_family_test: $*" >&2; exit 1; }

# Measurements of three GPUs (the data directory's layernorm.csv): a DRAM-bound LayerNorm (x read, y written) at 70 %
# of each GPU's bandwidth plus 3 us.
{
  echo "gpu,rows,cols,latency_us"
  for g in a100_sxm:2039 a40:696 h100_sxm:3350; do
    for rows in 1 8 64 256 1024 2048 4096 8192; do
      for cols in 1024 2560 4096; do
        awk -v g="${g%%:*}" -v bw="${g##*:}" -v r="$rows" -v c="$cols" \
          'BEGIN { printf "%s,%d,%d,%.4f\n", g, r, c, 3 + 4 * r * c / (bw * 1e3) / 0.7 }'
      done
    done
  done
} > "$work/data/layernorm.csv"

"$synperf" predict --help | grep -q "layernorm" || fail "predict does not list layernorm"
"$synperf" train --help | grep -q "layernorm" || fail "train does not list layernorm"
"$synperf" eval --help | grep -q "layernorm" || fail "eval does not list layernorm"

"$synperf" train layernorm --protocol --data "$work/data" --out "$work/layernorm.mlp" --epochs 20 > "$work/train.txt" 2>&1 ||
  { cat "$work/train.txt" >&2; fail "train layernorm failed"; }
for gpu in a100_sxm a40 h100_sxm; do
  [[ -s "$work/layernorm.loo-$gpu.mlp" ]] || fail "train wrote no weights without $gpu"
done

"$synperf" eval layernorm --data "$work/data" --weights "$work/layernorm.mlp" --json > "$work/eval.json" ||
  fail "eval layernorm failed"
for gpu in a100_sxm a40 h100_sxm; do
  grep -q "\"gpu\": *\"$gpu\"" "$work/eval.json" || fail "eval has no row for the held-out $gpu"
done

# A GPU nobody measured, with the weights trained without A40.
"$synperf" predict layernorm --gpu h200_sxm --rows 3000 --cols 2560 --weights "$work/layernorm.loo-a40.mlp" --json > "$work/predict.json" ||
  fail "predict layernorm failed"
latency="$(grep -oE '"latency_us": ?[0-9.eE+-]+' "$work/predict.json" | head -1 | sed -E 's/.*: ?//')"
theoretical="$(grep -oE '"theoretical_us": ?[0-9.eE+-]+' "$work/predict.json" | head -1 | sed -E 's/.*: ?//')"
awk -v l="$latency" -v t="$theoretical" 'BEGIN { exit !(l > 0 && l >= t) }' ||
  fail "predict layernorm: latency $latency us below its bound $theoretical us"
# Without weights the family has none shipped: a clear refusal, exit status 2.
set +e
"$synperf" predict layernorm --gpu h200_sxm --rows 3000 --cols 2560 > /dev/null 2> "$work/err.txt"
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "predict layernorm without weights: exit $rc, expected 2"
echo "own_family_test: layernorm trained, evaluated and predicted"
