#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Golden predictions: every family on several GPUs and frameworks, a few hundred problems, and end-to-end runs,
# printed at full precision (the CLI's JSON writes each double with the digits that round-trip it).
#
#   predictions.sh SYNPERF OUT          writes the predictions to OUT
#   predictions.sh SYNPERF --check      compares them with test/golden/predictions.txt (exit 1 on any difference)
#
# Each output line is `<case> <key>=<value> ...`, the keys in the order the JSON gives them: the numbers a refactor
# must leave bit-identical. Only the shipped weights are used, so no data directory is needed.
set -euo pipefail

synperf="$1"
target="$2"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# numbers <case> <synperf args...>: runs one command with --json and prints the case's numeric results.
numbers() {
  local name="$1"
  shift
  "$synperf" "$@" --json > "$work/out.json" 2> "$work/err.txt" ||
    { echo "golden: '$name' failed: $*" >&2; cat "$work/err.txt" >&2; exit 1; }
  grep -oE '"([a-z0-9_]*_(us|ms)|efficiency)": ?-?[0-9][0-9.eE+-]*' \
    "$work/out.json" | sed -E 's/"([a-z0-9_]+)": ?/\1=/' | awk -v name="$name" '{ line = line " " $0 } END { print name line }'
}

gpus=h100_sxm,a100_sxm,rtx_pro_6000_server,l40s,b200_sxm,h20

csv() { local f="$work/$1.csv"; shift; printf '%s\n' "$@" > "$f"; echo "$f"; }

run_all() {
  local mnk
  mnk="$(csv mnk m,n,k 1,4096,4096 7,4096,14336 16,28672,4096 64,1024,8192 128,6144,4096 333,4096,4096 \
         1024,4096,11008 2048,128256,4096 4096,4096,4096 8192,8192,8192 16384,1024,1024 512,512,512)"
  for fw in trtllm sglang vllm; do numbers "gemm/$fw" predict gemm --gpu "$gpus" --framework "$fw" --csv "$mnk"; done
  numbers gemm/fp16-reuse predict gemm --gpu "$gpus" --dtype fp16 --reuse-distance 1e9 --csv "$mnk"
  local mnk16
  mnk16="$(csv mnk16 m,n,k 1,4096,4096 16,28672,4096 128,6144,4096 1024,4096,11008 4096,4096,4096 8192,8192,8192)"
  numbers gemm_fp8 predict gemm_fp8 --gpu "$gpus" --csv "$mnk16"
  for fw in trtllm sglang; do numbers "fp8_linear/$fw" predict fp8_linear --gpu "$gpus" --framework "$fw" --csv "$mnk16"; done

  local heads
  for phase in prefill decode; do
    for fw in trtllm sglang vllm; do
      for shape in "32 8 128 1 512" "32 32 128 8 2048" "64 8 128 4 4096" "16 2 64 16 128" "8 1 256 2 8192"; do
        read -r h kv d b s <<< "$shape"
        numbers "attention/$phase/$fw/$h-$kv-$d-$b-$s" predict attention --gpu h100_sxm,a100_sxm,b200_sxm,l40s --phase "$phase" \
          --framework "$fw" --heads "$h" --kv-heads "$kv" --head-dim "$d" --batch "$b" --seq "$s"
      done
    done
  done
  for k in fa2 fa3 flashinfer triton; do
    numbers "attention/kernel/$k" predict attention --gpu h100_sxm --phase decode --framework sglang --kernel "$k" \
      --heads 32 --kv-heads 8 --head-dim 128 --batch 16 --seq 1500
  done
  numbers attention/fp8kv predict attention --gpu h100_sxm,h20 --phase decode --framework trtllm --kv-dtype fp8 \
    --heads 64 --kv-heads 8 --head-dim 128 --batch 32 --seq 3000
  numbers attention/window predict attention --gpu h100_sxm --phase prefill --framework vllm --window 1024 \
    --heads 32 --kv-heads 8 --head-dim 128 --batch 2 --seq 4096

  local gb
  gb="$(csv gb gpus,bytes 2,4096 2,1048576 4,65536 4,16777216 8,8192 8,262144 8,4194304 8,134217728)"
  for impl in sglang sglang_eager trtllm nccl vllm; do
    numbers "allreduce/$impl" predict allreduce --gpu h100_sxm,a100_sxm,b200_sxm --framework "$impl" --csv "$gb"
  done
  numbers allreduce/gather predict allreduce --gpu h100_sxm --framework nccl --op all_gather --csv "$gb"
  numbers allreduce/pcie predict allreduce --gpu l40s --framework nccl --topology pcie --gpus-per-node 8 --csv "$gb"

  local rows
  rows="$(csv rows tokens,hidden 1,4096 7,5120 64,8192 512,4096 4096,4096 16384,8192)"
  for kern in vllm_scalar vllm_vectorized flashinfer; do
    numbers "rmsnorm/$kern" predict rmsnorm --gpu "$gpus" --kernel "$kern" --dtype bf16 --csv "$rows"
    numbers "rmsnorm/$kern/fused" predict rmsnorm --gpu "$gpus" --kernel "$kern" --fused-add --csv "$rows"
  done
  local td
  td="$(csv td tokens,d 1,14336 9,11008 64,3584 512,14336 4096,7168 16384,1792)"
  for kern in vllm_scalar flashinfer; do numbers "silu_mul/$kern" predict silu_mul --gpu "$gpus" --kernel "$kern" --dtype bf16 --csv "$td"; done
  local rc
  rc="$(csv rc rows,cols 1,4096 33,5120 512,8192 4096,4096 16384,14336)"
  for op in fp8_quantize residual_add; do numbers "elementwise/$op" predict elementwise --gpu "$gpus" --op "$op" --dtype bf16 --csv "$rc"; done
  numbers elementwise/rope predict elementwise --gpu "$gpus" --op rope --rows 512 --heads 32 --kv-heads 8 --head-dim 128
  numbers elementwise/rope-small predict elementwise --gpu "$gpus" --op rope --rows 3 --heads 8 --kv-heads 1 --head-dim 64 --rotary-dim 32
  for gather in index_select vectorized; do
    numbers "elementwise/embedding/$gather" predict elementwise --gpu "$gpus" --op embedding --rows 2048 --cols 4096 --vocab 128256 --gather "$gather"
  done

  local moe
  moe="$(csv moe tokens 1 8 64 512 4096)"
  numbers moe/mixtral predict moe --gpu h100_sxm,a100_sxm,h20 --hidden 4096 --inter 14336 --experts 8 --topk 2 --tp 2 --csv "$moe"
  numbers moe/qwen3-fp8 predict moe --gpu h100_sxm,b200_sxm --hidden 2048 --inter 768 --experts 128 --topk 8 --dtype fp8 --csv "$moe"
  numbers moe/ep predict moe --gpu h100_sxm --hidden 4096 --inter 14336 --experts 8 --topk 2 --tp 4 --ep 2 --csv "$moe"
  numbers moe/default-config predict moe --gpu h100_sxm --hidden 4096 --inter 14336 --experts 8 --topk 2 --default-config --csv "$moe"
  for w in w13 w2; do
    numbers "moe_kernel/$w" predict moe_kernel --gpu h100_sxm,a100_sxm,l40s --tokens 256 --hidden 4096 --inter 7168 --experts 8 --topk 2 \
      --weight "$w" --block-m 64 --block-n 128 --block-k 64 --group-m 8 --warps 4 --stages 3
  done

  numbers e2e/llama8b-h100 e2e --model llama-3.1-8b --gpu h100_sxm --prompt-lens 100,900 --decode-steps 3
  numbers e2e/llama70b-h20-tp8 e2e --model llama-3.1-70b --gpu h20 --tp 8 --batch 4 --prompt-len 1000 --decode-steps 2
  numbers e2e/qwen14b-vllm e2e --model qwen2.5-14b --gpu a100_sxm --framework vllm --prompt-lens 512 --decode-steps 2
  numbers e2e/qwen14b-trtllm-fp8 e2e --model qwen2.5-14b --gpu h100_sxm --framework trtllm --fp8-weights --prompt-lens 512 --decode-steps 2
  numbers e2e/mixtral-tp2 e2e --model "$here/../data/e2e/mixtral-8x7b.json" --gpu h100_sxm --tp 2 --prompt-lens 100,300 --decode-steps 2
  numbers e2e/qwen3-moe e2e --model "$here/../data/e2e/qwen3-30b-a3b.json" --gpu b200_sxm --prompt-lens 256 --decode-steps 2
}

if [[ "$target" == --check ]]; then
  run_all > "$work/now.txt"
  if ! diff -u "$here/predictions.txt" "$work/now.txt" > "$work/diff.txt"; then
    echo "golden: predictions differ from test/golden/predictions.txt:" >&2
    head -40 "$work/diff.txt" >&2
    exit 1
  fi
  echo "golden: $(wc -l < "$work/now.txt") cases identical"
else
  run_all > "$target"
fi
