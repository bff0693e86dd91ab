#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Retrains every weights file in models/ and models/protocol/ from the seed and layer widths its `meta` line records,
# with the same `synperf train` command, and compares the result byte for byte: the check that each shipped or
# protocol model is what the code and the data give today. A file trained with `--restarts N` records the seed it
# kept, and a single run with that seed writes the same bytes; an ensemble (`--restarts N --ensemble`) records its
# first seed and `members=N`, and is retrained that way.
#   usage: scripts/check-weights.sh [family ...]        (default: every family with weights; needs build/tools/synperf
#          and the measured data: $SYNPERF_DATA or ../shared/data; on 2 cores, one BLAS thread per family and two
#          families at a time, each attention file (an ensemble of three networks) takes 17-21 minutes, each MoE file 4)
# Exit status 1 if any file differs.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
synperf="${SYNPERF_BIN:-build/tools/synperf}"
[[ -x "$synperf" ]] || { echo "check-weights: no $synperf (build the synperf_cli target first)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

families=("$@")
if [[ ${#families[@]} -eq 0 ]]; then
  for f in models/*.mlp; do families+=("$(basename "$f" .mlp)"); done
fi

meta_value() {  # meta_value <file> <key>: the key=value field of the file's meta line
  sed -n 's/^meta .*[[:space:]]'"$2"'=\([^[:space:]]*\).*/\1/p' "$1" | head -n 1
}

status=0
printf '| weights | seed | members | hidden | reproduced | seconds |\n|---|---:|---:|---|---|---:|\n'
for family in "${families[@]}"; do
  for kind in shipped protocol; do
    if [[ $kind == shipped ]]; then
      files=("models/$family.mlp")
      flags=()
    else
      files=(models/protocol/"$family".mlp models/protocol/"$family".loo-*.mlp)
      flags=(--protocol)
    fi
    existing=()
    for f in "${files[@]}"; do [[ -f "$f" ]] && existing+=("$f"); done
    [[ ${#existing[@]} -gt 0 ]] || continue
    seed="$(meta_value "${existing[0]}" seed)"
    hidden="$(meta_value "${existing[0]}" hidden | tr - ,)"
    [[ -n "$seed" && -n "$hidden" ]] || { echo "check-weights: ${existing[0]}: no seed= or hidden= in its meta line" >&2; exit 1; }
    members="$(meta_value "${existing[0]}" members)"
    if [[ -n "$members" ]]; then flags+=(--restarts "$members" --ensemble); fi
    out="$work/$kind-$family.mlp"
    start=$SECONDS
    "$synperf" train "$family" "${flags[@]}" --seed "$seed" --hidden "$hidden" --out "$out" >"$work/log" 2>&1 ||
      { cat "$work/log" >&2; exit 1; }
    for f in "${existing[@]}"; do
      name="$(basename "$f")"
      produced="$work/$kind-${name}"
      [[ "$name" == *.loo-* ]] && produced="$work/$kind-$family.${name#"$family".}"
      verdict=yes
      cmp -s "$f" "$produced" || { verdict=NO; status=1; }
      printf '| %s | %s | %s | %s | %s | %d |\n' "$f" "$seed" "${members:-1}" "$hidden" "$verdict" $((SECONDS - start))
    done
  done
done
exit $status
