#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A leave-one-GPU-out baseline on a `synperf eval <family> --dump FILE` table: each GPU is predicted as its
# theoretical time times the median measured / theoretical ratio of the other GPUs' rows (one constant
# efficiency on the family's lower bound). Prints the MAPE per GPU, to compare with the model's `loo` rows.
#   usage: scripts/loo-constant-baseline.sh DUMP.csv
set -euo pipefail
dump="${1:?usage: loo-constant-baseline.sh DUMP.csv (from synperf eval <family> --dump)}"
[[ -f "$dump" ]] || { echo "loo-constant-baseline: no file $dump" >&2; exit 1; }

gpus="$(awk -F, 'NR > 1 { print $1 }' "$dump" | sort -u)"
printf '| GPU | rows | constant-efficiency MAPE %% |\n|---|---:|---:|\n'
for gpu in $gpus; do
  # Median of measured / theoretical over the other GPUs (columns: gpu, ..., measured_us = 5, theoretical_us = 7).
  ratio="$(awk -F, -v g="$gpu" 'NR > 1 && $1 != g && $7 > 0 { print $5 / $7 }' "$dump" | sort -g |
    awk '{ v[++n] = $1 } END { if (n == 0) exit 1; print (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2) }')"
  awk -F, -v g="$gpu" -v c="$ratio" '
    NR > 1 && $1 == g && $5 > 0 { e = $7 * c / $5 - 1; s += (e < 0 ? -e : e); ++n }
    END { printf "| %s | %d | %.1f |\n", g, n, 100 * s / n }' "$dump"
done
