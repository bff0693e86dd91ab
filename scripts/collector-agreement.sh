#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# How far two collectors' measurements of the same bf16 GEMM shape disagree: TensorRT-LLM's table
# (aiconfigurator/<gpu>/gemm_perf.csv) against SGLang's (aiconfigurator_sglang/<gpu>/gemm_perf.csv), both
# timing torch -> cuBLAS. No model can predict both columns better than their disagreement allows, so this
# is the noise floor under the seen-row MAPE of `synperf eval gemm`.
#   usage: scripts/collector-agreement.sh [DATA_DIR]   (default: $SYNPERF_DATA or ../shared/data)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
data="${1:-${SYNPERF_DATA:-$root/../shared/data}}"
[[ -d "$data/aiconfigurator" && -d "$data/aiconfigurator_sglang" ]] ||
  { echo "collector-agreement: expected $data/aiconfigurator and $data/aiconfigurator_sglang" >&2; exit 1; }

printf '| GPU | shapes in both | mean abs(ln(sglang / trtllm)) %% | median %% | P90 %% |\n|---|---:|---:|---:|---:|\n'
for trt in "$data"/aiconfigurator/*/gemm_perf.csv; do
  gpu="$(basename "$(dirname "$trt")")"
  sgl="$data/aiconfigurator_sglang/$gpu/gemm_perf.csv"
  [[ -f "$sgl" ]] || continue
  awk -F, '
    FNR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
    $col["gemm_dtype"] != "bfloat16" { next }
    FILENAME == ARGV[1] { t[$col["m"] "," $col["n"] "," $col["k"]] = $col["latency"]; next }
    { key = $col["m"] "," $col["n"] "," $col["k"]
      if (key in t && t[key] > 0 && $col["latency"] > 0) { d = log($col["latency"] / t[key]); print (d < 0 ? -d : d) } }' \
    "$trt" "$sgl" | sort -g | awk -v gpu="$gpu" '
    { e[++n] = $1; s += $1 }
    END { if (n > 0) printf "| %s | %d | %.1f | %.1f | %.1f |\n", gpu, n, 100 * s / n, 100 * e[int((n + 1) / 2)], 100 * e[int(0.9 * n)] }'
done
