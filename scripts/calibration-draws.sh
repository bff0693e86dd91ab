#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# How much a few-shot calibration depends on which rows were measured. Runs `synperf eval <family> --calibrate N` for
# every family with protocol weights and several draws of the N rows. It prints:
#   - one line per held-out (GPU, framework) of the unseen-arch and leave-one-out splits: the model's MAPE and the
#     calibrated MAPE of each draw;
#   - counts over every held-out row and draw: improved, unchanged (within 0.05 points), worse;
#   - the five largest losses.
#   usage: scripts/calibration-draws.sh SYNPERF_BINARY [N] [DRAWS] [DATA_DIR]
#          (defaults: 16 rows, 5 draws (0 to 4), $SYNPERF_DATA or ../shared/data); about 15 minutes on 2 cores
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
synperf="${1:?usage: scripts/calibration-draws.sh SYNPERF_BINARY [N] [DRAWS] [DATA_DIR]}"
rows="${2:-16}"
draws="${3:-5}"
data="${4:-${SYNPERF_DATA:-$root/../shared/data}}"
[[ -d "$data" ]] || { echo "calibration-draws: no data directory $data" >&2; exit 1; }

families="$(for f in "$root"/models/protocol/*.mlp; do basename "$f" | cut -d. -f1; done | sort -u)"
for fam in $families; do
  for ((d = 0; d < draws; ++d)); do
    # The few-shot table's rows, tagged with the family and the draw.
    "$synperf" eval "$fam" --data "$data" --calibrate "$rows" --calibrate-draw "$d" 2>/dev/null |
      awk -v fam="$fam" -v draw="$d" '/^Few-shot calibration/ { on = 1; next } on && /^\| [a-z0-9_]+ \| / { print fam "|" draw $0 }'
  done
done | awk -F'|' -v draws="$draws" -v rows="$rows" '
  # Fields: family, draw, gpu, framework, split, rows scored, model MAPE, calibrated MAPE, form.
  { for (i = 3; i <= 9; ++i) gsub(/ /, "", $i) }
  $7 == "—" { next }
  {
    key = $1 " | " $3 " | " $4 " | " $5
    if (!(key in model)) { order[++n] = key; model[key] = $7 }
    cal[key] = cal[key] " " $8
    delta = $8 - $7
    if (delta < -0.05) ++better; else if (delta > 0.05) { ++worse; loss[++nl] = delta " | " key " | draw " $2 ": " $7 " -> " $8 " %" } else ++same
  }
  END {
    printf "| family | GPU | framework | split | model MAPE %% (draw 0) | calibrated MAPE %%, draws 0..%d (%d rows each) |\n", draws - 1, rows
    printf "|---|---|---|---|---:|---|\n"
    for (i = 1; i <= n; ++i) {
      k = order[i]
      if (k ~ /\| (unseen-arch|loo)$/) printf "| %s | %s |%s |\n", k, model[k], cal[k]
    }
    printf "\nover every held-out (GPU, framework) and draw: %d improved, %d unchanged (within 0.05 points), %d worse\n", better, same, worse
    printf "largest losses:\n"
    for (j = 1; j <= 5 && nl > 0; ++j) {
      best = 0
      for (i = 1; i <= nl; ++i) if (loss[i] != "" && (best == 0 || loss[i] + 0 > loss[best] + 0)) best = i
      if (best == 0) break
      split(loss[best], parts, " \\| ")
      printf "  +%.1f points: %s\n", parts[1], substr(loss[best], index(loss[best], "|") + 2)
      loss[best] = ""
    }
  }'
