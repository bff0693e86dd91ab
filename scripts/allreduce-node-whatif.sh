#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Predicts the measured all-reduces of one PipeWeave collective folder with the node described by the given
# `synperf predict allreduce` flags, and prints MAPE and P90 of latency against the measured median. The
# `synperf eval allreduce` row of that GPU stays blind (the built-in node); this shows what describing the
# real node changes.
#   usage: scripts/allreduce-node-whatif.sh FOLDER GPU [predict flags ...]
#   e.g.:  scripts/allreduce-node-whatif.sh RTX_6000_Ada rtx_6000_ada --p2p-group 1 --host-bridge-gbps 16
# Reads $SYNPERF_DATA (default ../shared/data beside the project); SYNPERF_BIN is the CLI (default
# build/tools/synperf); the weights are the protocol ones unless the flags give --weights.
set -euo pipefail
folder="${1:?usage: allreduce-node-whatif.sh FOLDER GPU [predict allreduce flags ...]}"
gpu="${2:?usage: allreduce-node-whatif.sh FOLDER GPU [predict allreduce flags ...]}"
shift 2
root="$(cd "$(dirname "$0")/.." && pwd)"
data="${SYNPERF_DATA:-$root/../shared/data}"
bin="${SYNPERF_BIN:-$root/build/tools/synperf}"
file="$data/pipeweave/collective/$folder/all_reduce.csv"
[[ -f "$file" ]] || { echo "allreduce-node-whatif: no file $file" >&2; exit 1; }
weights=(--weights "$root/models/protocol/allreduce.mlp")
for a in "$@"; do [[ "$a" == --weights ]] && weights=(); done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Single-node rows (num_workers = devices_per_node), as `synperf eval allreduce` reads them: size in bytes,
# latency the median in ms.
awk -F, -v out="$work/shapes.csv" -v meas="$work/measured.txt" '
  NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; print "gpus,bytes" > out; next }
  $col["num_workers"] == $col["devices_per_node"] {
    print $col["num_workers"] "," $col["size"] > out; print $col["time_stats.all_reduce.median"] * 1000 > meas }' "$file"
"$bin" predict allreduce --gpu "$gpu" --csv "$work/shapes.csv" --implementation torch --dtype fp16 "${weights[@]}" "$@" \
  | awk -F, 'NR > 1 { print $4 }' > "$work/predicted.txt"
paste "$work/measured.txt" "$work/predicted.txt" |
  awk '{ e = $2 / $1 - 1; e = (e < 0 ? -e : e); print e }' | sort -g |
  awk -v f="$folder" '{ v[++n] = $1; s += $1 }
    END { p = int(0.9 * n + 0.999999); if (p < 1) p = 1
          printf "%s: %d rows, MAPE %.1f %%, P90 %.1f %%\n", f, n, 100 * s / n, 100 * v[p] }'
