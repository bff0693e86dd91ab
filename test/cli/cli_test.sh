#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end checks of the synperf CLI. Usage: cli_test.sh <synperf> <source-dir> <work-dir> <case>
# Exit 77 = skipped (no measured data); the message says why.
set -uo pipefail
synperf="$1" src="$2" work="$3/$4" case="$4"
mkdir -p "$work"  # one folder per case: CTest runs cases in parallel
data="${SYNPERF_DATA:-$src/../shared/data}"

fail() { echo "FAIL: $*"; exit 1; }
need_data() { [[ -d "$data/aiconfigurator" ]] || { echo "SKIPPED: no measured data at $data (set SYNPERF_DATA)"; exit 77; }; }
# expect_error <regex> <args...>: the command must exit non-zero and print the regex on stderr.
expect_error() {
  local pattern="$1"; shift
  local out; out="$("$synperf" "$@" 2>&1)"; local rc=$?
  [[ $rc -eq 2 ]] || fail "'$*' exited $rc, expected 2 (bad input)"
  grep -Eq -e "$pattern" <<<"$out" || fail "'$*' printed '$out', expected /$pattern/"
  echo "ok: $* -> $out"
}

case "$case" in
  gpus)
    out="$("$synperf" gpus)" || fail "gpus"
    for id in a100_sxm h100_sxm b300_sxm rtx_pro_6000_server rtx_5090; do grep -q "$id" <<<"$out" || fail "gpus lacks $id"; done
    "$synperf" gpus --json | grep -q '"sms": 132' || fail "gpus --json";;
  predict_without_data)
    # The shipped model is embedded: prediction needs no data directory.
    out="$(SYNPERF_DATA=/nonexistent "$synperf" predict gemm --gpu h100_sxm --m 4096 --n 4096 --k 4096 --json)" || fail "predict"
    grep -q '"latency_us"' <<<"$out" || fail "no latency in $out"
    grep -q '"tile"' <<<"$out" || fail "no tile in $out"
    # The bound's terms per kernel: a 4096^3 GEMM on H100 is tensor-bound, and its tensor term is the bound.
    grep -Eq '^        "tensor": [0-9.]+,?$' <<<"$out" && grep -q '"busiest_sm_us"' <<<"$out" || fail "no bound_us terms in $out"
    "$synperf" predict gemm --gpu h100_sxm --m 4096 --n 4096 --k 4096 | grep -Eq '^  bound terms  tensor [0-9.]+ \| ' \
      || fail "no bound terms line, tensor first"
    "$synperf" predict gemm --gpu "NVIDIA A100-SXM4-80GB" --m 1 --n 8192 --k 8192 | grep -q "latency" || fail "alias"
    # A GPU without measurements in the model's training data is named on stderr, with the GPUs that had them; a measured one is not.
    "$synperf" predict gemm --gpu l4 --m 64 --n 4096 --k 4096 --json 2>"$work/err.txt" | grep -q '"latency_us"' || fail "l4"
    grep -q "^note: no measurement of l4 trained the gemm model (its GPUs: a100_sxm, .*h100_sxm.*): predicted from the spec alone" \
      "$work/err.txt" || fail "no unmeasured-GPU note for l4: $(cat "$work/err.txt")"
    "$synperf" predict rmsnorm --gpu h100_sxm --tokens 64 --hidden 4096 2>"$work/err.txt" >/dev/null || fail "rmsnorm"
    [[ ! -s "$work/err.txt" ]] || fail "a measured GPU got a note: $(cat "$work/err.txt")"
    "$synperf" predict rmsnorm --gpu b200_sxm --tokens 64 --hidden 4096 2>&1 >/dev/null | grep -q "no measurement of b200_sxm trained the rmsnorm model" \
      || fail "no unmeasured-GPU note for rmsnorm on b200_sxm"
    # Every family's kernels carry the same fields: as many of each as there are kernels, and more than one here.
    for args in "moe --gpu h100_sxm --tokens 256 --hidden 7168 --inter 2048 --experts 256 --topk 8 --tp 8" \
                "fp8_linear --gpu l40s --m 64 --n 8192 --k 8192 --framework sglang" \
                "attention --phase decode --gpu h100_sxm --framework sglang --heads 32 --kv-heads 8 --head-dim 128 --batch 8 --seq 4096"; do
      out="$("$synperf" predict $args --json)" || fail "predict $args --json"
      kernels="$(grep -c '^      "name": ' <<<"$out")"
      [[ $kernels -ge 2 ]] || fail "predict $args --json: expected several kernels, got $kernels"
      for field in tasks waves ctas_per_sm busy_sms theoretical_us bottleneck imbalance kind priced_apart bound_us busiest_sm_us; do
        [[ "$(grep -c "^      \"$field\": " <<<"$out")" -eq $kernels ]] || fail "predict $args --json: not every kernel has $field"
      done
    done;;
  predict_csv)
    printf 'm,n,k\n1,4096,4096\n4096,4096,4096\n' > "$work/shapes.csv"
    out="$("$synperf" predict gemm --gpu b200_sxm --csv "$work/shapes.csv")" || fail "csv"
    [[ "$(wc -l <<<"$out")" -eq 3 ]] || fail "expected header + 2 rows, got: $out"
    # A list of GPUs: one table, the header once, a gpu column.
    out="$("$synperf" predict gemm --gpu b200_sxm,a100_sxm --csv "$work/shapes.csv")" || fail "csv on two GPUs"
    [[ "$(wc -l <<<"$out")" -eq 5 && "$(grep -c '^a100_sxm,' <<<"$out")" -eq 2 ]] || fail "expected header + 2 rows per GPU, got: $out"
    # The FP8 families take the same file; a GPU without FP8 tensor cores says so on stderr and the table stays whole.
    for fam in gemm_fp8 fp8_linear; do
      out="$("$synperf" predict "$fam" --gpu a100_sxm,h100_sxm --csv "$work/shapes.csv" 2>"$work/err.txt")" || fail "$fam csv"
      [[ "$(wc -l <<<"$out")" -eq 3 && "$(head -1 <<<"$out")" == gpu,* && "$(grep -c '^h100_sxm,' <<<"$out")" -eq 2 ]] \
        || fail "$fam: expected header + 2 h100_sxm rows, got: $out"
      grep -q "a100_sxm: cannot run: .*no FP8 tensor cores" "$work/err.txt" || fail "$fam: a100_sxm's reason not on stderr"
      "$synperf" predict "$fam" --gpu h100_sxm --csv "$work/shapes.csv" --json | grep -c '"latency_us"' | grep -qx 2 \
        || fail "$fam --csv --json: expected two rows"
    done
    # --csv --json prints its array row by row: one array of two objects, indented as one document.
    out="$("$synperf" predict gemm --gpu h100_sxm --csv "$work/shapes.csv" --json)" || fail "gemm --csv --json"
    [[ "$(head -1 <<<"$out")" == "[" && "$(sed -n 2p <<<"$out")" == "  {" && "$(tail -1 <<<"$out")" == "]" \
       && "$(grep -c '^  },$' <<<"$out")" -eq 1 && "$(grep -c '^  }$' <<<"$out")" -eq 1 \
       && "$(grep -c '^    "latency_us": ' <<<"$out")" -eq 2 ]] || fail "gemm --csv --json: not one array of two rows: $out"
    printf 'm,n,k\n64,4096,4096\n64,4096,4095\n' > "$work/bad_fp8.csv"
    expect_error "bad_fp8.csv:3: gemm_fp8: k must be a multiple of 16" predict gemm_fp8 --gpu h100_sxm --csv "$work/bad_fp8.csv"
    printf 'm,n,k\n1,2,3\n3000000000,4,4\n' > "$work/big.csv"
    expect_error "big.csv:3: gemm: m must be <= 2\^31" predict gemm --gpu h100_sxm --csv "$work/big.csv";;
  measured_column)
    # A measured_us column adds measured_us and error_pct to each row and a summary on stderr; bad values name their line.
    printf 'm,n,k,measured_us\n1,4096,4096,10\n4096,4096,4096,200\n' > "$work/measured.csv"
    out="$("$synperf" predict gemm --gpu h100_sxm --csv "$work/measured.csv" 2>"$work/measured_err.txt")" || fail "gemm with measured_us"
    [[ "$(head -1 <<<"$out")" == *,measured_us,error_pct ]] || fail "header lacks measured_us,error_pct: $out"
    awk -F, 'NR > 1 && ($(NF - 1) + 0 <= 0 || $NF !~ /^[+-][0-9]+\.[0-9][0-9]$/) {bad = 1} END {exit bad}' <<<"$out" \
      || fail "rows lack measured_us / error_pct: $out"
    grep -Eq '^measured on h100_sxm: 2 rows, MAPE [0-9.]+ %, P90 [0-9.]+ %, mean signed error [+-][0-9.]+ %$' "$work/measured_err.txt" \
      || fail "no summary: $(cat "$work/measured_err.txt")"
    "$synperf" predict gemm --gpu h100_sxm --csv "$work/measured.csv" --json 2>/dev/null | grep -c '"error_pct"' | grep -qx 2 \
      || fail "--json rows lack error_pct"
    grep -q "^warning: .*median row measured" "$work/measured_err.txt" && fail "microseconds read as another unit"
    # Nanoseconds in the microsecond column: the summary says the unit looks wrong.
    printf 'm,n,k,measured_us\n1,4096,4096,10000\n4096,4096,4096,200000\n' > "$work/measured_ns.csv"
    "$synperf" predict gemm --gpu h100_sxm --csv "$work/measured_ns.csv" 2>&1 >/dev/null \
      | grep -q "^warning: on h100_sxm, the median row measured .* times the prediction: is measured_us in microseconds" \
      || fail "no unit warning for nanoseconds in measured_us"
    # The error is (predicted - measured) / measured: recompute it from the printed columns.
    awk -F, 'NR > 1 {e = 100 * ($5 - $(NF - 1)) / $(NF - 1); if (e - $NF > 0.01 || $NF - e > 0.01) bad = 1} END {exit bad}' <<<"$out" \
      || fail "error_pct is not (latency - measured) / measured: $out"
    printf 'batch,seq,measured_us\n4,1024,35.5\n8,2048,0\n' > "$work/bad_measured.csv"
    expect_error "bad_measured.csv:3: column 'measured_us': expected a time between 1 ns and 10\\^6 s \\(in µs\\), got '0'" \
      predict attention --gpu h100_sxm --heads 32 --kv-heads 8 --head-dim 128 --phase decode --csv "$work/bad_measured.csv"
    # A denormal or an astronomic time is not a measurement: it would print an infinite error.
    for t in 1e-320 1e308; do
      printf 'm,n,k,measured_us\n1024,1024,1024,%s\n' "$t" > "$work/tiny_measured.csv"
      expect_error "tiny_measured.csv:2: column 'measured_us': expected a time between 1 ns and 10\\^6 s \\(in µs\\), got '$t'" \
        predict gemm --gpu h100_sxm --csv "$work/tiny_measured.csv"
    done
    printf 'tokens,measured_us\n16,nan\n' > "$work/nan_measured.csv"
    expect_error "nan_measured.csv:2: column 'measured_us': expected a finite number" \
      predict rmsnorm --gpu h100_sxm --hidden 4096 --csv "$work/nan_measured.csv"
    for cmd in "moe --hidden 4096 --inter 14336 --experts 8 --topk 2" "silu_mul --d 14336" "elementwise --op residual_add --hidden 4096"; do
      printf 'tokens,measured_us\n16,20\n256,40\n' > "$work/measured_tokens.csv"
      # shellcheck disable=SC2086
      "$synperf" predict $cmd --gpu h100_sxm --csv "$work/measured_tokens.csv" 2>&1 >/dev/null | grep -q '^measured on h100_sxm: 2 rows' \
        || fail "predict $cmd: no measured summary"
    done
    printf 'gpus,bytes,measured_us\n8,1048576,30\n' > "$work/measured_ar.csv"
    "$synperf" predict allreduce --gpu h100_sxm --csv "$work/measured_ar.csv" 2>&1 >/dev/null | grep -q '^measured on h100_sxm: 1 rows' \
      || fail "predict allreduce: no measured summary"
    # A collective on one GPU is predicted to take no time: its row has no error and is not averaged in.
    printf 'gpus,bytes,measured_us\n1,1048576,3\n8,1048576,30\n' > "$work/measured_ar1.csv"
    out="$("$synperf" predict allreduce --gpu h100_sxm --csv "$work/measured_ar1.csv" 2>&1)" || fail "allreduce with a 1-GPU row: $out"
    grep -q "^measured on h100_sxm: 1 rows predicted to take no time (one GPU, no communication) are not scored" <<<"$out" \
      && grep -q "^measured on h100_sxm: 1 rows, MAPE" <<<"$out" || fail "a 1-GPU row was scored: $out"
    echo "ok: measured_us columns and summaries";;
  h200_measurements)
    # The H200 measurements in bench/measure/h200_sxm set against the models: every figure the docs quote is what the
    # command prints with the committed weights.
    m="$src/bench/measure/h200_sxm"
    summary() { "$synperf" "$@" 2>&1 >/dev/null | grep '^measured on ' || fail "no summary from: $*"; }
    cells() { sed -E 's/.*MAPE ([0-9.]+) %, P90 ([0-9.]+) %.*/\1 | \2/' <<<"$1"; }
    for set in "prefill, 54 non-causal|prefill|attention_fa2_prefill.csv|--non-causal" "prefill, 54 causal|prefill|attention_fa2_prefill_causal.csv|--causal" \
               "decode, 35 split-KV|decode|attention_fa2_decode.csv|"; do
      IFS='|' read -r label phase file flag <<<"$set"
      # shellcheck disable=SC2086
      args=(predict attention --gpu h200_sxm --kernel fa2 --no-preprocess --phase "$phase" $flag --csv "$m/$file")
      shipped="$(summary "${args[@]}")"
      protocol="$(summary "${args[@]}" --weights "$src/models/protocol/attention_$phase.mlp")"
      row="| $label | $(cells "$shipped") | $(cells "$protocol") |"
      grep -qxF -- "$row" "$src/docs/families/attention.md" || fail "docs/families/attention.md lacks the row '$row'"
    done
    gemm="$(summary predict gemm --gpu h200_sxm --csv "$m/gemm_bf16.csv")"
    grep -qF -- "$gemm" "$src/README.md" || fail "README.md does not quote '$gemm'"
    grep -qF -- "MAPE $(sed -E 's/.*MAPE ([0-9.]+ %, P90 [0-9.]+ %).*/\1/' <<<"$gemm")" "$src/docs/families/gemm.md" \
      || fail "docs/families/gemm.md does not quote the GEMM summary '$gemm'"
    for set in "residual_add|" "embedding|" "embedding|--gather vectorized"; do
      IFS='|' read -r op flag <<<"$set"
      for weights in "" "--weights $src/models/protocol/elementwise.mlp"; do
        # shellcheck disable=SC2086
        line="$(summary predict elementwise --op "$op" $flag --gpu h200_sxm --csv "$m/elementwise_$op.csv" $weights)"
        grep -qF -- "$line" "$src/docs/families/elementwise.md" || fail "docs/families/elementwise.md does not quote '$line'"
      done
    done
    # RMSNorm and SiLU&Mul: every kernel of vllm_rowwise.py in both orders; the scalar one also with a protocol fold.
    for set in "rmsnorm|vllm_scalar|" "rmsnorm|vllm_vectorized|" "rmsnorm|flashinfer|" "rmsnorm|vllm_vectorized_fused|--fused-add" \
               "silu_mul|vllm_scalar|" "silu_mul|flashinfer|"; do
      IFS='|' read -r fam kernel flag <<<"$set"
      for order in "" _cold; do
        weights=("")
        [[ "$kernel" == vllm_scalar ]] && weights+=("--weights $src/models/protocol/$fam.loo-h100_sxm.mlp")
        for w in "${weights[@]}"; do
          # shellcheck disable=SC2086
          line="$(summary predict "$fam" --gpu h200_sxm --kernel "${kernel%_fused}" $flag --csv "$m/${fam}_$kernel$order.csv" $w)"
          grep -qF -- "$line" "$src/docs/families/$fam.md" || fail "docs/families/$fam.md does not quote '$line'"
        done
      done
    done
    echo "ok: the H200 measurement figures match the commands";;
  predict_gpu_list)
    # Every predict command runs on each GPU of a list; a GPU it cannot serve says why and the others still run.
    out="$("$synperf" predict gemm_fp8 --gpu h100_sxm,a100_sxm,b200_sxm --m 64 --n 4096 --k 4096)" || fail "gemm_fp8 list: $out"
    [[ "$(grep -c '^  latency' <<<"$out")" -eq 2 ]] || fail "expected two predictions in: $out"
    grep -q "^a100_sxm: cannot run: gemm_fp8: this GPU (sm_80) has no FP8 tensor cores" <<<"$out" || fail "no reason for a100_sxm: $out"
    json="$("$synperf" predict rmsnorm --gpu all --tokens 16 --hidden 4096 --json)" || fail "rmsnorm --gpu all"
    [[ "$(grep -c '"latency_us"' <<<"$json")" -eq 22 ]] || fail "expected 22 GPUs in the JSON array"
    [[ "$(head -c 1 <<<"$json")" == "[" ]] || fail "a list of GPUs gives a JSON array"
    # GPUs without measurements in the model's training data are named in one note after the list, not one each.
    "$synperf" predict rmsnorm --gpu h100_sxm,l4,b200_sxm,a40 --tokens 16 --hidden 4096 2>"$work/err.txt" >/dev/null || fail "rmsnorm list"
    [[ "$(grep -c '^note: ' "$work/err.txt")" -eq 1 ]] \
      && grep -q "^note: no measurement of l4, b200_sxm trained the rmsnorm model (its GPUs: a100_sxm, a40, h100_sxm)" "$work/err.txt" \
      || fail "expected one note for l4 and b200_sxm: $(cat "$work/err.txt")"
    expect_error "unknown GPU 'h900'" predict gemm --gpu h100_sxm,h900 --m 8 --n 8 --k 8
    # `all` is a name like the others: any case, and inside a list, each GPU once.
    for list in ALL all,h100_sxm h100_sxm,All; do
      json="$("$synperf" predict rmsnorm --gpu "$list" --tokens 16 --hidden 4096 --json)" || fail "rmsnorm --gpu $list"
      [[ "$(grep -c '"latency_us"' <<<"$json")" -eq 22 ]] || fail "--gpu $list: expected the 22 GPUs once each"
    done
    expect_error "has an empty GPU name" predict attention --phase decode --gpu ,h100_sxm --heads 8 --kv-heads 8 --head-dim 128 --batch 1 --seq 64;;
  predict_spec_file)
    "$synperf" predict gemm --gpu-spec "$src/examples/specs/hypothetical_h100_8tbs.spec" --m 16 --n 8192 --k 8192 | grep -q latency || fail "spec"
    a="$("$synperf" predict gemm --gpu h100_sxm --m 16 --n 8192 --k 8192 --json | grep '"theoretical_us"')"
    b="$("$synperf" predict gemm --gpu h100_sxm --set dram_gbps=6700 --m 16 --n 8192 --k 8192 --json | grep '"theoretical_us"')"
    [[ "$a" != "$b" ]] || fail "--set dram_gbps changed nothing";;
  bad_input)
    # A command line CLI11 cannot read is bad input like any other: exit status 2 and a `synperf:` message naming it.
    expect_error "^synperf: .*--bogus" predict gemm --gpu h100_sxm --m 8 --n 8 --k 8 --bogus 1
    expect_error "^synperf: .*--epochs" train gemm --epochs 0
    expect_error "^synperf: --batch: must be in \\[2, 1048576\\], got 1" train rmsnorm --batch 1
    expect_error "^synperf: unknown command 'nosuch'; known: gpus, predict" nosuch
    expect_error "kv_heads must divide heads \(40 query heads\), got 7" predict elementwise --gpu h100_sxm --op rope --rows 8 --heads 40 --kv-heads 7 --head-dim 128
    expect_error "unknown GPU 'h900'; known: a100_sxm" predict gemm --gpu h900 --m 1 --n 1 --k 1
    expect_error "m must be > 0, got 0" predict gemm --gpu h100_sxm --m 0 --n 8 --k 8
    expect_error "k must be > 0, got -5" predict gemm --gpu h100_sxm --m 8 --n 8 --k -5
    expect_error "'99999999999999999999' is out of the 64-bit integer range" predict gemm --gpu h100_sxm --m 8 --n 99999999999999999999 --k 8
    # strtoll(…, 0) would read these as octal 8 and hex 16: integers are decimal only.
    expect_error "expected a decimal integer, got '010'" predict gemm --gpu h100_sxm --m 010 --n 8 --k 8
    expect_error "expected comma-separated integers, got '64,0x20' \(element 2: '0x20'\)" predict attention --phase decode --gpu h100_sxm --heads 8 --kv-heads 8 --head-dim 128 --kv-lens 64,0x20
    expect_error "must be <= 2\^31" predict gemm --gpu h100_sxm --m 8 --n 8 --k 4294967296
    expect_error "unknown key 'dram_gbs'" predict gemm --gpu h100_sxm --set dram_gbs=1 --m 8 --n 8 --k 8
    # One value per field, as a spec file allows: a repeated --set is refused, not silently overwritten.
    expect_error "--set dram_gbps is given twice \('dram_gbps=1000', ' dram_gbps = 2000'\)" predict gemm --gpu h100_sxm --set dram_gbps=1000 --set " dram_gbps = 2000" --m 8 --n 8 --k 8
    expect_error "--config excludes --default-config" predict moe --gpu h100_sxm --tokens 64 --hidden 4096 --inter 14336 --experts 8 --topk 2 --config 64,64,64,1,4,3 --default-config
    expect_error "--rotary-dim: must be > 0, got 0" predict elementwise --gpu h100_sxm --op rope --rows 128 --heads 32 --kv-heads 8 --head-dim 128 --rotary-dim 0
    printf '# shapes\nm,n,k\n8,4096,4096\n' > "$work/commented.csv"
    expect_error "commented.csv:2: expected 1 fields, got 3 \(the first line must name the columns; is it a comment\?\)" predict gemm --gpu h100_sxm --csv "$work/commented.csv"
    printf '4096,4096,4096\n8,4096,4096\n' > "$work/headerless.csv"
    expect_error "headerless.csv:1: column '4096' appears twice \(columns 1 and 2\); is the header line missing\?" predict gemm --gpu h100_sxm --csv "$work/headerless.csv"
    # CLI11 alone says "Could not convert" for a value beyond an int option's range.
    expect_error "--heads: expected a 32-bit integer \(at most 2147483647\), got 3000000000" predict attention --phase decode --gpu h100_sxm --heads 3000000000 --head-dim 128 --batch 1 --seq 64
    printf 'm,n,k\n1,2,3\n' | gzip > "$work/shapes.csv.gz"
    expect_error "shapes.csv.gz:1:1: expected a text CSV table, got the control byte 0x1f" predict gemm --gpu h100_sxm --csv "$work/shapes.csv.gz"
    printf 'm,n,k\r8,4096,4096\r' > "$work/mac.csv"
    expect_error "mac.csv:1:6: a line ends in a carriage return alone" predict gemm --gpu h100_sxm --csv "$work/mac.csv"
    head -c 64 "$synperf" > "$work/binary.spec"
    expect_error "binary.spec:1:1: expected a text GPU spec file, got the control byte 0x7f" predict gemm --gpu-spec "$work/binary.spec" --m 8 --n 8 --k 8
    # A size neither a column nor its option gives is named, not read as a zero.
    printf 'tokens\n8\n' > "$work/no_hidden.csv"
    expect_error "no_hidden.csv:1: no column 'hidden' and no --hidden" predict rmsnorm --gpu h100_sxm --csv "$work/no_hidden.csv"
    printf 'm,n,k\n1,2\n' > "$work/bad.csv"
    expect_error "bad.csv:2: expected 3 fields, got 2" predict gemm --gpu h100_sxm --csv "$work/bad.csv"
    printf 'synperf-mlp 9\n' > "$work/bad.mlp"
    expect_error "bad.mlp:1" predict gemm --gpu h100_sxm --m 8 --n 8 --k 8 --weights "$work/bad.mlp"
    expect_error "reuse_distance_bytes must be finite and >= 0" predict gemm --gpu h100_sxm --m 8 --n 8 --k 8 --reuse-distance -1
    # Lists: an empty element is an error, not a shorter list.
    expect_error "synperf: --q-lens: expected comma-separated integers, got '1,,3' \(element 2: ''\)" \
      predict attention --gpu h100_sxm --heads 32 --kv-heads 8 --head-dim 128 --q-lens 1,,3
    expect_error "synperf: --config: .*element 7" predict moe --gpu h100_sxm --tokens 4 --hidden 4096 --inter 14336 --experts 8 --topk 2 \
      --config 64,64,32,8,4,3,
    # Sizes no GPU holds are refused before any arithmetic can overflow.
    expect_error "heads must be in 1..65536" predict elementwise --gpu h100_sxm --op rope --rows 1 --heads 2147483647 --kv-heads 1 --head-dim 2
    expect_error "heads must be in 1..65536" predict attention --gpu h100_sxm --heads 2147483647 --kv-heads 1 --head-dim 128 --batch 1 --seq 1
    expect_error "expert weights, 5.4e\+16 elements, exceed 2\^40" predict moe --gpu h100_sxm --tokens 16 --hidden 1048576 \
      --inter 4194304 --experts 4096 --topk 8
    expect_error "silu_mul: the input of tokens x 2d = .* exceeds 2\^40" predict silu_mul --gpu h100_sxm --tokens 2147483647 --d 16777216
    expect_error "rmsnorm: tokens x hidden = .* exceeds 2\^40" predict rmsnorm --gpu h100_sxm --tokens 2147483647 --hidden 1048576
    expect_error "fp8_quantize: the FP8 quantize kernel reads a 16-bit input, bf16 or fp16 \(element_bytes 2\), got 4" predict elementwise --gpu h100_sxm --op fp8_quantize --rows 1 --cols 8 --dtype fp32
    expect_error "unknown --dtype 'garbage'" predict elementwise --gpu h100_sxm --op fp8_quantize --rows 1 --cols 8 --dtype garbage
    expect_error "converting to e4m3 needs compute capability 8.9 or newer; this GPU is sm_80" \
      predict elementwise --gpu a100_sxm --op fp8_quantize --rows 16 --cols 4096
    expect_error "page_size must be in 1..2\^24" predict attention --gpu h100_sxm --heads 32 --kv-heads 8 --head-dim 128 \
      --batch 1 --seq 64 --page-size 100000000
    # Floating-point options take finite numbers only (a NaN passes every range check); a range check does not
    # hide the decimal-integer check of an integer option.
    expect_error "--dropout: expected a finite number, got 'nan'" train rmsnorm --dropout nan
    expect_error "--lr: expected a finite number, got 'nan'" train rmsnorm --lr nan
    # Decimal only, as for integers: no hexadecimal, no blanks.
    expect_error "--reuse-distance: expected a number, got '0x10'" predict gemm --gpu h100_sxm --m 8 --n 8 --k 8 --reuse-distance 0x10
    expect_error "--reuse-distance: expected a number, got ' 5'" predict gemm --gpu h100_sxm --m 8 --n 8 --k 8 --reuse-distance ' 5'
    "$synperf" predict gemm --gpu h100_sxm --m 8 --n 8 --k 8 --reuse-distance +1e6 >/dev/null || fail "--reuse-distance +1e6"
    expect_error "--reuse-distance: '1e999' is outside the double range" predict gemm --gpu h100_sxm --m 8 --n 8 --k 8 --reuse-distance 1e999
    expect_error "--epochs: expected a decimal integer, got '010'" train rmsnorm --epochs 010
    # A list of GPUs none of which can run the op fails after saying why for each; one reason for all is the input's.
    expect_error "none of the 2 listed GPUs can run this" predict elementwise --gpu a100_sxm,a40 --op fp8_quantize --rows 16 --cols 4096
    expect_error "^synperf: gemm: an operand of 4.61e\+18 elements exceeds 2\^40 \(no GPU holds it\)$" \
      predict gemm --gpu h100_sxm,a100_sxm --m 2147483647 --n 2147483647 --k 1
    expect_error "^synperf: gemm: m must be > 0, got 0$" predict gemm --gpu all --m 0 --n 8 --k 8
    # An option of another variant is a mistake, not something to ignore.
    expect_error "elementwise: --heads does not apply to --op residual_add" \
      predict elementwise --gpu h100_sxm --op residual_add --rows 16 --cols 4096 --heads -5
    expect_error "elementwise: --vocab does not apply to --op rope" \
      predict elementwise --gpu h100_sxm --op rope --rows 16 --heads 8 --head-dim 128 --vocab 5
    # A GPU whose CTAs cannot hold a kernel's tiles does not run it.
    expect_error "shared memory per CTA; this GPU gives one CTA at most 1024 \(smem_per_cta_bytes\)" \
      predict attention --gpu h100_sxm --set smem_per_cta_bytes=1024 --heads 32 --kv-heads 8 --head-dim 128 --batch 4 --seq 1024
    expect_error "gemm_fp8: the .* kernel needs two pipeline stages and its epilogue" \
      predict gemm_fp8 --gpu h100_sxm --set smem_per_cta_bytes=1024 --m 4096 --n 4096 --k 4096
    # CSV files: unknown, repeated or conflicting columns, no rows, flags and a file at once.
    printf 'tokens,expert\n16,8\n' > "$work/typo.csv"
    expect_error "typo.csv:1: unknown column 'expert' for predict moe; known: tokens, hidden" \
      predict moe --gpu h100_sxm --hidden 4096 --inter 14336 --experts 8 --topk 2 --csv "$work/typo.csv"
    printf 'm,m,n,k\n1,2,64,64\n' > "$work/twice.csv"
    expect_error "twice.csv:1: column 'm' appears twice \(columns 1 and 2\)" predict gemm --gpu h100_sxm --csv "$work/twice.csv"
    printf 'tokens,rows,cols\n16,16,4096\n' > "$work/alias.csv"
    expect_error "columns 'rows' and 'tokens' name the same size" predict elementwise --gpu h100_sxm --op residual_add --csv "$work/alias.csv"
    printf 'm,n,k\n\n' > "$work/header_only.csv"
    expect_error "header_only.csv:1: expected at least one data row" predict gemm --gpu h100_sxm --csv "$work/header_only.csv"
    printf 'm,n,k\n8,8,8\n' > "$work/one.csv"
    expect_error "give --m, --n and --k, or --csv FILE, not both" predict gemm --gpu h100_sxm --m 5 --csv "$work/one.csv"
    # Weights: an efficiency floor of 0 (a latency without bound), framework levels renamed or reordered.
    sed 's/^efficiency .*/efficiency 0 1/' "$src/models/gemm.mlp" > "$work/eff0.mlp"
    expect_error "eff0.mlp:[0-9]+:12: efficiency range minimum 0 is outside \[1e-9, 1\]" \
      predict gemm --gpu h100_sxm --m 8 --n 8 --k 8 --weights "$work/eff0.mlp"
    sed 's/^categorical framework 2 trtllm torch/categorical framework 2 torch trtllm/' "$src/models/gemm.mlp" > "$work/swapped.mlp"
    expect_error "weights have framework levels 'torch trtllm', family 'gemm' expects 'trtllm torch'" \
      predict gemm --gpu h100_sxm --m 8 --n 8 --k 8 --weights "$work/swapped.mlp"
    # Nodes: P2P groups must tile the node, node sizes are checked.
    expect_error "p2p_group_size \(3\) must divide gpus_per_node \(8\)" \
      predict allreduce --gpu l40s --gpus 4 --bytes 1048576 --topology pcie --p2p-group 3 --host-bridge-gbps 16
    expect_error "--gpus-per-node: must be in \\[1, 1024\\], got -5" \
      predict allreduce --gpu h100_sxm --gpus 4 --bytes 1048576 --topology nvswitch --gpus-per-node -5
    # GPU specs: a display name is one printable line; a UTF-8 byte-order mark is not part of the first key.
    expect_error "expected printable text, got a control character \\(code 10\\)" predict gemm --gpu h100_sxm --set "display_name=$(printf 'a\nb')" --m 8 --n 8 --k 8
    expect_error "--set name=: expected an id of letters, digits, '_', '-' or '.', got ''" predict gemm --gpu h100_sxm --set name= --m 8 --n 8 --k 8
    printf '\xef\xbb\xbfname = bom_gpu\nbase = h100_sxm\n' > "$work/bom.spec"
    "$synperf" predict gemm --gpu-spec "$work/bom.spec" --m 8 --n 8 --k 8 | grep -q "on bom_gpu" || fail "a spec file with a BOM"
    # A spreadsheet's CSV export: a byte-order mark and CRLF line ends.
    printf '\xef\xbb\xbfm,n,k\r\n1024,1024,1024\r\n' > "$work/bom.csv"
    "$synperf" predict gemm --gpu h100_sxm --csv "$work/bom.csv" | grep -q '^h100_sxm,1024,1024,1024,' || fail "a CSV file with a BOM"
    expect_error "train --out .*: the folder .* does not exist" train rmsnorm --out "$work/no/such/dir/x.mlp"
    # Without --out, the weights go under the working directory, never into the source tree; checked before training.
    mkdir -p "$work/empty_cwd"
    ( cd "$work/empty_cwd" && expect_error "train: the default output models/rmsnorm.mlp: the folder .*empty_cwd/models does not exist" train rmsnorm )
    if [[ "$(id -u)" != 0 ]]; then  # root writes anywhere
      mkdir -p "$work/read_only" && chmod a-w "$work/read_only"
      expect_error "train --out .*read_only/x.mlp: cannot be written" train rmsnorm --out "$work/read_only/x.mlp"
      chmod u+w "$work/read_only"
    fi
    # A word that is not a command names itself and the commands there are.
    expect_error "unknown command 'nope'; known: gpus, predict, train, ensemble, eval, e2e, calibrate" nope
    expect_error "unknown command 'gemmm'; known: gemm, attention, .*, elementwise$" predict gemmm
    expect_error "unknown option '--nope'; expected a command: gpus" --nope
    # An empty value is an error, not the option's default (here: the shipped weights file).
    expect_error "--out: expected a value, got an empty string" train rmsnorm --epochs 1 --out ''
    expect_error "--weights: expected a value, got an empty string" predict gemm --gpu h100_sxm --m 8 --n 8 --k 8 --weights ''
    # Anything but a regular file is refused before reading (a device never ends).
    expect_error "/dev/zero: expected a regular file \(weights file\), got a device" predict gemm --gpu h100_sxm --m 8 --n 8 --k 8 --weights /dev/zero
    expect_error "/dev/zero: expected a regular file \(GPU spec file\)" predict gemm --gpu-spec /dev/zero --m 8 --n 8 --k 8
    expect_error "expected a regular file \(CSV table\), got a directory" predict gemm --gpu h100_sxm --csv "$work"
    expect_error "data directory '/dev/null' \(from --data\) is not a directory" eval gemm --data /dev/null
    # A size left out is named as the flag to give, not as a zero the family rejects.
    expect_error "--tokens \\(or a --csv column\\) is required" predict moe --gpu h100_sxm --hidden 4096
    expect_error "--head-dim \\(or a --csv column\\) is required" predict attention --gpu h100_sxm --heads 32 --batch 1 --seq 128
    # A measured row whose shape the family rejects is named by file and line.
    mkdir -p "$work/bad_data/aiconfigurator/h100_sxm"
    printf 'kernel_source,gemm_dtype,m,n,k,latency\ntorch_flow,bfloat16,16,4096,4096,0.01\ntorch_flow,bfloat16,99999999999,4096,4096,0.01\n' \
      > "$work/bad_data/aiconfigurator/h100_sxm/gemm_perf.csv"
    expect_error "h100_sxm/gemm_perf.csv:3: gemm: m must be <= 2\\^31, got 99999999999" eval gemm --data "$work/bad_data"
    # A count past 32 bits is an error at its line, never narrowed into a small one; an unknown GPU folder is named.
    mkdir -p "$work/wide_data/aiconfigurator/h100_sxm"
    printf 'kernel_source,batch_size,isl,num_heads,num_key_value_heads,head_dim,window_size,attn_dtype,kv_cache_dtype,latency\ntorch_flow,16,1024,4294967424,8,128,0,bfloat16,bfloat16,0.5\n' \
      > "$work/wide_data/aiconfigurator/h100_sxm/context_attention_perf.csv"
    expect_error "context_attention_perf.csv:2: column 'num_heads': expected a positive integer of at most 2\\^31 - 1, got '4294967424'" \
      eval attention_prefill --data "$work/wide_data"
    mkdir -p "$work/stray_data/aiconfigurator/h900"
    cp "$work/bad_data/aiconfigurator/h100_sxm/gemm_perf.csv" "$work/stray_data/aiconfigurator/h900/"
    expect_error "stray_data/aiconfigurator/h900: unknown GPU 'h900'; known: a100_sxm" eval gemm --data "$work/stray_data"
    # A row the family rejects only once its problem is built is still named by file and line.
    mkdir -p "$work/fp8_data/aiconfigurator/h100_sxm"
    printf 'kernel_source,gemm_dtype,m,n,k,latency\ntorch_flow,fp8,16,1,4096,0.01\n' > "$work/fp8_data/aiconfigurator/h100_sxm/gemm_perf.csv"
    expect_error "h100_sxm/gemm_perf.csv:2: fp8_linear: n must be a multiple of 16" eval fp8_linear --data "$work/fp8_data"
    # A GPU whose table holds only its header is named, not silently left out of the table.
    mkdir -p "$work/thin_data/aiconfigurator/h100_sxm" "$work/thin_data/aiconfigurator/b200_sxm"
    { echo 'kernel_source,gemm_dtype,m,n,k,latency'
      for m in 1 2 4 8 16 32 64 128 256 512 1024 2048; do for n in 1024 4096 8192; do
        echo "torch_flow,bfloat16,$m,$n,4096,$(awk -v m="$m" -v n="$n" 'BEGIN { printf "%.4f", 0.005 + 2 * m * n * 4096 / 6e14 * 1e3 }')"
      done; done; } > "$work/thin_data/aiconfigurator/h100_sxm/gemm_perf.csv"
    printf 'kernel_source,gemm_dtype,m,n,k,latency\n' > "$work/thin_data/aiconfigurator/b200_sxm/gemm_perf.csv"
    "$synperf" eval gemm --data "$work/thin_data" 2>&1 | grep -q "note: no measured row of b200_sxm" || fail "a header-only GPU left out silently"
    # A table that is there but cannot be read is an error, not a GPU left out.
    mkdir -p "$work/broken_data/aiconfigurator/h100_sxm"
    ln -sf /nonexistent/gemm_perf.csv "$work/broken_data/aiconfigurator/h100_sxm/gemm_perf.csv"
    expect_error "broken_data/aiconfigurator/h100_sxm/gemm_perf.csv: cannot open: No such file or directory" eval gemm --data "$work/broken_data"
    expect_error "cannot write --dump file /nonexistent/x.csv: No such file or directory" eval gemm --data "$work/bad_data" --dump /nonexistent/x.csv;;
  bad_input_consistency)
    # A one-GPU collective communicates nothing, but its inputs and weights are checked as for more GPUs.
    expect_error "--bytes: must be > 0, got -5" predict allreduce --gpu h100_sxm --gpus 1 --bytes -5
    expect_error "multiple of the element size 4, got 3" predict allreduce --gpu h100_sxm --gpus 1 --bytes 3 --dtype fp32
    expect_error "reduce_scatter is modelled for nccl and torch only" predict allreduce --gpu h100_sxm --gpus 1 --bytes 1024 --op reduce_scatter --framework trtllm
    expect_error "give --gpus and --bytes, or --csv FILE \(--bytes is missing\)" predict allreduce --gpu h100_sxm --gpus 8
    expect_error "--host-bridge-gbps joins peer-to-peer groups" predict allreduce --gpu h100_pcie --topology pcie --gpus 4 --bytes 1048576 --host-bridge-gbps 10
    # A catalogue GPU's name names that GPU only: no A100 reported as an H100 (and as one the model was trained on).
    expect_error "--set name=h100_sxm: 'h100_sxm' is the catalogue's h100_sxm" predict gemm --gpu a100_sxm --set name=h100_sxm --m 128 --n 4096 --k 4096
    printf 'name = h100_sxm\nbase = a100_sxm\n' > "$work/clash.spec"
    expect_error "clash.spec:1: name: 'h100_sxm' is the catalogue's h100_sxm" predict gemm --gpu-spec "$work/clash.spec" --m 128 --n 4096 --k 4096
    # Fields that constrain each other change together, in either order.
    for pair in "tensor_clock_mhz=2500 --set boost_clock_mhz=2500" "boost_clock_mhz=2500 --set tensor_clock_mhz=2500"; do
      "$synperf" predict gemm --gpu h100_sxm --set $pair --m 128 --n 4096 --k 4096 >/dev/null 2>&1 || fail "--set $pair"
    done
    # A number beyond every catalogued GPU is named: the prediction extrapolates.
    "$synperf" predict gemm --gpu h100_sxm --set sm_count=1024 --m 128 --n 4096 --k 4096 2>&1 >/dev/null \
      | grep -q "warning: h100_sxm GPU field sm_count = 1024 (catalogue: .*): beyond every GPU the models learned from" \
      || fail "no warning for sm_count=1024"
    "$synperf" predict gemm --gpu h100_sxm --set dram_gbps=3000 --m 128 --n 4096 --k 4096 2>&1 >/dev/null | grep -q warning \
      && fail "a field within the catalogue's span got a warning"
    # A size given by both an option and a --csv column is refused, not silently taken from the column.
    printf 'tokens\n128\n' > "$work/tokens.csv"
    expect_error "tokens.csv:1: column 'tokens' sets the size that an option also gives \(5\)" predict rmsnorm --gpu h100_sxm --csv "$work/tokens.csv" --hidden 4096 --tokens 5
    "$synperf" predict rmsnorm --gpu h100_sxm --csv "$work/tokens.csv" --hidden 4096 >/dev/null || fail "rmsnorm --csv with --hidden"
    printf 'batch,seq\n4,1024\n' > "$work/batches.csv"
    expect_error "column 'batch' sets the size that an option also gives \(2\)" predict attention --gpu h100_sxm --heads 32 --head-dim 128 --csv "$work/batches.csv" --batch 2
    expect_error "column 'tokens' sets the size that an option also gives \(5\)" predict moe --gpu h100_sxm --hidden 4096 --inter 14336 --experts 8 --topk 2 --csv "$work/tokens.csv" --tokens 5
    # Another op's size is not a column of this one.
    printf 'vocab\n32000\n' > "$work/vocab.csv"
    expect_error "vocab.csv:1: .*'vocab'" predict elementwise --gpu h100_sxm --op residual_add --csv "$work/vocab.csv" --rows 5 --cols 4096
    # Flags that would be ignored are refused.
    expect_error "--non-causal applies to --phase prefill only" predict attention --phase decode --non-causal --gpu h100_sxm --heads 32 --head-dim 128 --batch 1 --seq 64
    expect_error "--calibrate-draw requires --calibrate" eval rmsnorm --calibrate-draw 5
    # The FP8 quantize reads fp16 as well as bf16, and says which.
    "$synperf" predict elementwise --gpu h100_sxm --op fp8_quantize --rows 128 --cols 4096 --dtype fp16 | grep -q "fp16 -> e4m3" \
      || fail "fp8_quantize relabels fp16"
    # moe_kernel's messages name moe_kernel, and a zero block size is a bad value, not a missing one.
    expect_error "moe_kernel: topk \(9\) must be <= experts \(8\)" predict moe_kernel --gpu a100_sxm --tokens 64 --hidden 4096 --inter 14336 --experts 8 --topk 9 --block-m 64 --block-n 64 --block-k 64
    expect_error "--block-m: must be > 0, got 0" predict moe_kernel --gpu a100_sxm --tokens 64 --hidden 4096 --inter 14336 --experts 8 --topk 2 --block-m 0 --block-n 64 --block-k 64
    # A framework that runs another's kernels says so; the embedding gather says which kernel runs.
    "$synperf" predict allreduce --gpu h100_sxm --gpus 8 --bytes 1048576 --framework vllm \
      | grep -q "vllm (the same custom all-reduce as sglang, modelled as sglang)" || fail "allreduce --framework vllm label"
    "$synperf" predict elementwise --gpu h100_sxm --op embedding --rows 8 --cols 4096 --vocab 32000 --gather vectorized \
      | grep -q "gather=vectorized (16 rows or fewer: PyTorch's small-index kernel runs)" || fail "small gather label"
    # A GPU from a spec file has no SGLang tuned MoE files: the default rule, no error.
    "$synperf" predict moe --gpu-spec "$src/examples/specs/hypothetical_h100_8tbs.spec" --tokens 64 --hidden 4096 --inter 14336 \
      --experts 8 --topk 2 | grep -q latency || fail "moe on a spec-file GPU"
    # An op whose tensors exceed the GPU's memory is predicted, and the reader is told no single GPU runs it.
    out="$("$synperf" predict gemm --gpu h100_sxm --m 1000000 --n 100000 --k 100000 2>&1 >/dev/null)"
    grep -q "warning: h100_sxm: the op's tensors take 420 GB, more than the 84.93 GB of device memory: no single GPU runs it" <<<"$out" || fail "no memory warning: $out"
    "$synperf" predict gemm --gpu h100_sxm --m 4096 --n 4096 --k 4096 2>&1 >/dev/null | grep -q "device memory" \
      && fail "a GEMM that fits got a memory warning"
    # CSV rows have no room for warnings: one summary on stderr names the rows.
    printf 'm,n,k\n128,4096,4096\n1000000,100000,100000\n' > "$work/huge.csv"
    out="$("$synperf" predict gemm --gpu h100_sxm --csv "$work/huge.csv" 2>&1 >/dev/null)"
    grep -q "warning: on h100_sxm, 1 of 2 rows have warnings (row 2; --json gives each row's)" <<<"$out" || fail "no CSV warning summary: $out"
    # Numbers in messages read as numbers.
    expect_error "reuse_distance_bytes must be finite and >= 0 \(0 = serving\), got -1$" predict gemm --gpu h100_sxm --m 128 --n 4096 --k 4096 --reuse-distance -1;;
  train_smoke)
    need_data
    "$synperf" train gemm --protocol --data "$data" --epochs 2 --max-rows 4000 --hidden 32,16 --out "$work/smoke.mlp" || fail "train"
    head -1 "$work/smoke.mlp" | grep -q "^synperf-mlp" || fail "no weights written"
    grep -q "hidden=32-16" "$work/smoke.mlp" || fail "--hidden 32,16 not used"
    expect_error "hidden.*(not in range|out of range|0)" train gemm --protocol --data "$data" --hidden 0 --out "$work/bad_hidden.mlp"
    expect_error "hidden.*(not in range|out of range|513)" train gemm --protocol --data "$data" --hidden 64,513 --out "$work/bad_hidden.mlp"
    "$synperf" predict gemm --gpu l40s --m 64 --n 4096 --k 4096 --weights "$work/smoke.mlp" | grep -q latency || fail "smoke weights unusable"
    # Restarts: seeds 42 and 43 on the same validation rows, the better one kept.
    out="$("$synperf" train gemm --protocol --data "$data" --epochs 2 --max-rows 4000 --hidden 32,16 --restarts 2 --out "$work/restarts.mlp" 2>&1)" \
      || fail "train --restarts: $out"
    grep -q "seed 43: validation loss" <<<"$out" || fail "--restarts 2 did not train seed 43: $out"
    # An ensemble keeps both seeds; joining the two single runs gives the same file, byte for byte.
    "$synperf" train gemm --protocol --data "$data" --epochs 2 --max-rows 4000 --hidden 32,16 --restarts 2 --ensemble \
      --out "$work/ensemble.mlp" 2>/dev/null || fail "train --ensemble"
    head -1 "$work/ensemble.mlp" | grep -qx "synperf-mlp 2" || fail "--ensemble did not write format version 2"
    grep -qx "members 2" "$work/ensemble.mlp" || fail "--ensemble did not write 2 members"
    grep -q " members=2 member_seeds=42,43 " "$work/ensemble.mlp" || fail "--ensemble meta lacks its seeds"
    "$synperf" train gemm --protocol --data "$data" --epochs 2 --max-rows 4000 --hidden 32,16 --seed 43 --out "$work/seed43.mlp" \
      2>/dev/null || fail "train --seed 43"
    "$synperf" ensemble "$work/smoke.mlp" "$work/seed43.mlp" --out "$work/joined.mlp" || fail "ensemble"
    cmp -s "$work/ensemble.mlp" "$work/joined.mlp" || fail "synperf ensemble differs from train --ensemble"
    "$synperf" predict gemm --gpu l40s --m 64 --n 4096 --k 4096 --weights "$work/ensemble.mlp" | grep -q latency \
      || fail "ensemble weights unusable"
    expect_error "--ensemble: needs --restarts 2 or more" train gemm --protocol --data "$data" --ensemble --out "$work/bad.mlp"
    expect_error "network 2 .* differs from network 1 .* in its family" ensemble "$work/smoke.mlp" "$src/models/silu_mul.mlp" --out "$work/bad.mlp"
    expect_error "an ensemble of 2 members; retrain it with --restarts 2 --ensemble" train gemm --protocol --data "$data" \
      --max-rows 4000 --record-only --out "$work/joined.mlp"
    # The trainer records the training rows' efficiency range and the auxiliary kernels they ran (GEMM: none);
    # --record-only rewrites both from the same rows (seed and row count in meta) and changes nothing else, so the
    # file comes back identical.
    grep -q "^efficiency " "$work/smoke.mlp" || fail "no efficiency range written"
    grep -qx "kernels" "$work/smoke.mlp" || fail "no (empty) trained-kernels line written"
    cp "$work/smoke.mlp" "$work/annotated.mlp"
    "$synperf" train gemm --protocol --data "$data" --max-rows 4000 --record-only --out "$work/annotated.mlp" \
      || fail "train --record-only"
    cmp -s "$work/smoke.mlp" "$work/annotated.mlp" || fail "--record-only changed a freshly trained file"
    expect_error "trained on .* rows, the data gives" train gemm --protocol --data "$data" --max-rows 3000 \
      --record-only --out "$work/annotated.mlp"
    expect_error "restarts.*(not in range|out of range|0)" train gemm --protocol --data "$data" --restarts 0 --out "$work/bad_restarts.mlp";;
  eval_gemm)
    need_data
    out="$("$synperf" eval gemm --data "$data" --json)" || fail "eval"
    for gpu in h100_sxm b200_sxm l40s a100_sxm rtx_pro_6000_server rtx_5090 b300_sxm gb300 h200_sxm gb200; do
      grep -q "\"gpu\": \"$gpu\"" <<<"$out" || fail "eval lacks $gpu"
    done
    "$synperf" eval gemm --data "$data";;
  predict_attention)
    # Embedded shipped models: no data directory needed.
    out="$(SYNPERF_DATA=/nonexistent "$synperf" predict attention --phase prefill --gpu h100_sxm --framework sglang --heads 40 \
      --kv-heads 8 --head-dim 128 --q-lens 2648,3740,3012,3866 --causal --json)" || fail "predict attention prefill"
    for key in latency_us efficiency implementation tile splits kernels imbalance; do grep -q "\"$key\"" <<<"$out" || fail "no $key in $out"; done
    grep -q '"implementation": "fa3"' <<<"$out" || fail "sglang on h100 should run fa3: $out"
    grep -q '"kernel_in_training_data": true' <<<"$out" || fail "fa3 is timed by the tables: $out"
    "$synperf" predict attention --phase decode --gpu b200_sxm --framework trtllm --heads 32 --kv-heads 8 --head-dim 128 \
      --batch 64 --seq 4096 | grep -q latency || fail "predict attention decode"
    # SGLang casts the query to FP8 with an FP8 cache on trtllm_mha: FP8 math, and the cast is a kernel of the op.
    out="$("$synperf" predict attention --phase prefill --gpu b200_sxm --framework sglang --heads 32 --kv-heads 8 \
      --head-dim 128 --batch 1 --seq 4096 --causal --kv-dtype fp8 --json)" || fail "predict attention fp8 cache"
    grep -q '"math": "fp8"' <<<"$out" || fail "sglang trtllm_mha with an fp8 cache should run fp8 math: $out"
    grep -q 'torch_cast_q_to_fp8' <<<"$out" || fail "no query cast kernel: $out"
    # The protocol decode weights were trained on no op with an FP8 cast (their 'kernels' line): SGLang's K and V casts
    # on RTX PRO 6000 are priced apart, at a launch each; the shipped weights, trained on that GPU too, price them.
    fp8_decode=(predict attention --phase decode --gpu rtx_pro_6000_server --framework sglang --heads 32 --kv-heads 8
      --head-dim 128 --batch 8 --seq 64 --kv-dtype fp8)
    out="$("$synperf" "${fp8_decode[@]}" --weights "$src/models/protocol/attention_decode.mlp")" || fail "priced apart"
    grep -q "priced apart .* at their own floor: fp8_cast" <<<"$out" || fail "no priced-apart line: $out"
    [[ "$(grep -c "(priced apart)$" <<<"$out")" == 2 ]] || fail "expected 2 kernels priced apart: $out"
    out="$("$synperf" "${fp8_decode[@]}" --json)" || fail "fp8 decode json"
    grep -q '"priced_apart_us": 0' <<<"$out" || fail "the shipped weights price every kernel: $out"
    grep -q '"kind": "fp8_cast"' <<<"$out" || fail "no kernel kinds in the JSON: $out"
    "$synperf" predict attention --phase decode --gpu rtx_pro_6000_server --framework sglang --kernel flashinfer --heads 32 \
      --kv-heads 8 --head-dim 128 --batch 8 --seq 2048 | grep -q flashinfer || fail "forced flashinfer"
    # No table times FlashInfer: the prediction says it is a transfer.
    note="$("$synperf" predict attention --phase decode --gpu h100_sxm --framework sglang --kernel flashinfer --heads 32 \
      --kv-heads 8 --head-dim 128 --batch 8 --seq 2048 2>&1 >/dev/null)" || fail "flashinfer decode"
    grep -q "no training table times flashinfer kernels" <<<"$note" || fail "no transfer note for flashinfer: $note"
    out="$("$synperf" predict attention --phase decode --gpu h100_sxm --framework sglang --kernel flashinfer --heads 32 \
      --kv-heads 8 --head-dim 128 --batch 8 --seq 2048 --json)" || fail "flashinfer decode json"
    grep -q '"kernel_in_training_data": false' <<<"$out" || fail "flashinfer is timed by no table: $out"
    expect_error "multiple of kv_heads" predict attention --phase prefill --gpu h100_sxm --heads 40 --kv-heads 7 --head-dim 128 --batch 1 --seq 16
    expect_error "2 query lengths but 1 KV lengths" predict attention --phase prefill --gpu h100_sxm --heads 8 --head-dim 128 --q-lens 4,5 --kv-lens 9
    expect_error "must be > 0" predict attention --phase decode --gpu h100_sxm --heads 8 --head-dim 128 --batch 0 --seq 16
    expect_error "query length must be in 1" predict attention --phase prefill --gpu h100_sxm --heads 8 --head-dim 128 --q-lens 0,4
    expect_error "fa3.*(does not|not support|supports)" predict attention --phase prefill --gpu b200_sxm --kernel fa3 --heads 8 --head-dim 128 --batch 1 --seq 64
    # Uniform batches from a CSV: longer caches never decode faster.
    printf 'batch,seq\n8,1024\n8,4096\n8,16384\n' > "$work/batches.csv"
    for phase in prefill decode; do
      out="$("$synperf" predict attention --phase "$phase" --gpu h100_sxm,l40s --framework trtllm --heads 32 --kv-heads 8 \
        --head-dim 128 --causal --csv "$work/batches.csv")" || fail "predict attention --phase $phase --csv"
      [[ "$(wc -l <<<"$out")" -eq 7 && "$(head -1 <<<"$out")" == gpu,framework,phase,* ]] || fail "$phase: expected header + 6 rows: $out"
      awk -F, 'NR > 1 && $1 == g && $10 < prev { exit 1 } NR > 1 { g = $1; prev = $10 }' <<<"$out" || fail "$phase: faster with longer KV: $out"
    done
    printf 'batch,seq,kv_heads\n1,64,8\n1,64,7\n' > "$work/attn_bad.csv"
    expect_error "attn_bad.csv:3: attention: heads \(32\) must be a multiple of kv_heads \(7\)" predict attention --phase decode \
      --gpu h100_sxm --heads 32 --head-dim 128 --csv "$work/attn_bad.csv"
    expect_error "drop --q-lens/--kv-lens" predict attention --gpu h100_sxm --heads 8 --head-dim 128 --q-lens 4 --csv "$work/batches.csv";;
  predict_memory_bound)
    # A tiny op's bound is printed with its significant digits, not as 0.000 us.
    "$synperf" predict elementwise --gpu h100_sxm --op residual_add --rows 1 --cols 8 2>/dev/null \
      | grep -Eq "^  theoretical  [0-9.]+e-0[0-9] us" || fail "a tiny bound printed as zero"
    # Embedded shipped models: no data directory needed.
    out="$(SYNPERF_DATA=/nonexistent "$synperf" predict rmsnorm --gpu h100_sxm --tokens 4096 --hidden 5120 --json)" || fail "predict rmsnorm"
    for key in latency_us efficiency theoretical_us bottleneck kernel grid_ctas threads waves; do grep -q "\"$key\"" <<<"$out" || fail "no $key in $out"; done
    grep -q '"grid_ctas": 4096' <<<"$out" || fail "rmsnorm runs one CTA per token: $out"
    out="$("$synperf" predict rmsnorm --gpu a100_sxm --tokens 64 --hidden 4096 --fused-add --kernel flashinfer 2>&1)" || fail "fused add"
    grep -q "outside the training range: fused_add" <<<"$out" || fail "fused add (never measured) should warn: $out"
    out="$("$synperf" predict silu_mul --gpu b200_sxm --tokens 1024 --intermediate 13824 --json)" || fail "predict silu_mul"
    grep -q '"d": 13824' <<<"$out" || fail "silu_mul d: $out"
    "$synperf" predict silu_mul --gpu-spec "$src/examples/specs/hypothetical_h100_8tbs.spec" --tokens 16 --d 14336 | grep -q latency || fail "silu_mul spec"
    out="$("$synperf" predict elementwise --gpu h100_sxm --op fp8_quantize --rows 2048 --cols 8192 --json)" || fail "predict fp8_quantize"
    grep -q '"framework": "trtllm"' <<<"$out" || fail "fp8_quantize defaults to its collector: $out"
    "$synperf" predict elementwise --gpu a100_sxm --op rope --tokens 512 --heads 32 --kv-heads 8 --head-dim 128 | grep -q "framework vidur" || fail "rope"
    "$synperf" predict elementwise --gpu l40s --op residual_add --rows 512 --cols 4096 | grep -q latency || fail "residual_add"
    "$synperf" predict elementwise --gpu h200_sxm --op embedding --rows 128 --cols 8192 --vocab 128256 | grep -q "indexSelect" || fail "embedding"
    "$synperf" predict elementwise --gpu h200_sxm --op embedding --rows 128 --cols 8192 --vocab 128256 --gather vectorized \
      | grep -q "vectorized_gather_kernel" || fail "embedding --gather vectorized"
    expect_error "rmsnorm: tokens must be > 0, got 0" predict rmsnorm --gpu h100_sxm --tokens 0 --hidden 4096
    expect_error "unknown --dtype 'int4'; known: bf16, fp16, fp32" predict rmsnorm --gpu h100_sxm --tokens 8 --hidden 4096 --dtype int4
    expect_error "rmsnorm: unknown framework 'trtllm'" predict rmsnorm --gpu h100_sxm --tokens 8 --hidden 4096 --framework trtllm
    expect_error "silu_mul: d must be > 0, got -3" predict silu_mul --gpu h100_sxm --tokens 8 --d -3
    expect_error "needs d divisible by 8" predict silu_mul --gpu h100_sxm --tokens 8 --d 100 --kernel flashinfer
    expect_error "gelu not in" predict elementwise --gpu h100_sxm --op gelu --rows 8 --cols 8
    expect_error "rope: head_dim must be even and > 0, got 7" predict elementwise --gpu h100_sxm --op rope --rows 8 --heads 8 --head-dim 7
    expect_error "--cols \\(or a --csv column\\) is required" predict elementwise --gpu h100_sxm --op residual_add --rows 8
    expect_error "residual_add: cols must be > 0, got 0" predict elementwise --gpu h100_sxm --op residual_add --rows 8 --cols 0
    expect_error "--vocab \\(or a --csv column\\) is required" predict elementwise --gpu h100_sxm --op embedding --rows 8 --cols 64
    expect_error "embedding: vocab must be > 0" predict elementwise --gpu h100_sxm --op embedding --rows 8 --cols 64 --vocab 0
    expect_error "--gather does not apply to --op residual_add" predict elementwise --gpu h100_sxm --op residual_add --rows 8 --cols 64 \
      --gather vectorized
    expect_error "unknown GPU 'h900'" predict silu_mul --gpu h900 --tokens 8 --d 64
    expect_error "no GPU given: pass --gpu NAME" predict elementwise --op residual_add --rows 8 --cols 64
    # Token sweeps from a CSV: the sizes the file lacks come from the flags; more tokens never run faster.
    printf 'tokens\n1\n512\n4096\n' > "$work/tokens.csv"
    for cmd in "rmsnorm --hidden 8192 --fused-add --kernel flashinfer" "silu_mul --d 14336" \
               "elementwise --op rope --heads 64 --kv-heads 8 --head-dim 128"; do
      # shellcheck disable=SC2086
      out="$("$synperf" predict $cmd --gpu h100_sxm,a100_sxm --csv "$work/tokens.csv")" || fail "predict $cmd --csv"
      [[ "$(wc -l <<<"$out")" -eq 7 && "$(head -1 <<<"$out")" == gpu,framework,* ]] || fail "$cmd: expected header + 6 rows, got: $out"
      col="$(head -1 <<<"$out" | tr ',' '\n' | grep -nx latency_us | cut -d: -f1)"
      awk -F, -v c="$col" 'NR > 1 && $1 == g && $c < prev { exit 1 } NR > 1 { g = $1; prev = $c }' <<<"$out" \
        || fail "$cmd: latency falls with tokens: $out"
    done
    "$synperf" predict silu_mul --gpu h100_sxm --csv "$work/tokens.csv" --d 14336 --json | grep -c '"latency_us"' | grep -qx 3 \
      || fail "silu_mul --csv --json: expected three rows"
    printf 'tokens,hidden\n8,4096\n8,0\n' > "$work/norm_bad.csv"
    expect_error "norm_bad.csv:3: column 'hidden': expected a positive integer, got '0'" predict rmsnorm --gpu h100_sxm --csv "$work/norm_bad.csv"
    printf 'batch\n8\n' > "$work/no_size.csv"
    expect_error "no_size.csv:1: unknown column 'batch' for predict silu_mul; known: tokens, d" predict silu_mul --gpu h100_sxm --csv "$work/no_size.csv";;
  eval_attention)
    need_data
    for fam in attention_prefill attention_decode; do
      out="$("$synperf" eval $fam --data "$data" --json)" || fail "eval $fam"
      for gpu in h100_sxm b200_sxm l40s a100_sxm rtx_pro_6000_server b300_sxm gb300 h200_sxm gb200; do
        grep -q "\"gpu\": \"$gpu\"" <<<"$out" || fail "eval $fam lacks $gpu"
      done
      grep -q '"flagged": true' <<<"$out" || fail "eval $fam flags no never-seen kernel rows"
    done
    # The protocol decode weights' training ops ran no FP8 cast: RTX PRO 6000's SGLang rows with one price it apart.
    grep -q "rtx_pro_6000_server / sglang: [0-9]* of [0-9]* rows price kernels apart.*fp8_cast" <<<"$out" \
      || fail "eval attention_decode does not note the kernels it prices apart: $out";;
  predict_moe)
    # Embedded shipped model: no data directory needed.
    out="$(SYNPERF_DATA=/nonexistent "$synperf" predict moe --gpu h100_sxm --tokens 256 --hidden 7168 --inter 2048 --experts 256 \
      --topk 8 --tp 8 --json)" || fail "predict moe"
    for key in latency_us efficiency theoretical_us config grid_ctas empty_ctas num_tokens_post_padded kernels; do
      grep -q "\"$key\"" <<<"$out" || fail "no $key in $out"
    done
    grep -q '"source": "sglang_default"' <<<"$out" || fail "default config not reported: $out"
    # SGLang ships a tuned file for H100, E 128, N 768 (Qwen3-30B-A3B at tp 1): its 256-token entry, unless told not to.
    out="$("$synperf" predict moe --gpu h100_sxm --tokens 256 --hidden 2048 --inter 768 --experts 128 --topk 8)" || fail "predict moe tuned"
    grep -q "32x256x128 GROUP_SIZE_M 1 num_warps 4 num_stages 2 (sglang_tuned, triton_3_2_0)" <<<"$out" || fail "tuned config not used: $out"
    out="$("$synperf" predict moe --gpu h100_sxm --tokens 256 --hidden 2048 --inter 768 --experts 128 --topk 8 --default-config)" \
      || fail "predict moe --default-config"
    grep -q "64x64x32 GROUP_SIZE_M 8 num_warps 4 num_stages 3 (sglang_default)" <<<"$out" || fail "--default-config not applied: $out"
    out="$("$synperf" predict moe --gpu b200_sxm --tokens 64 --hidden 4096 --inter 14336 --experts 8 --topk 2 --ep 2 --dtype fp8 \
      --config 32,128,128,1,4,3)" || fail "predict moe with config"
    grep -q "32x128x128 GROUP_SIZE_M 1 num_warps 4 num_stages 3 (explicit)" <<<"$out" || fail "explicit config not used: $out"
    out="$("$synperf" predict moe --gpu h100_sxm --tokens 64 --hidden 7168 --inter 2048 --experts 256 --topk 8 --ep 8 \
      --ep-remote clamped --json)" || fail "predict moe --ep-remote clamped"
    grep -q '"remote_slots": "clamped_to_expert0"' <<<"$out" || fail "--ep-remote not applied: $out"
    expect_error "tokens must be > 0, got 0" predict moe --gpu h100_sxm --tokens 0 --hidden 4096 --inter 14336 --experts 8 --topk 2
    expect_error "topk \(9\) must be <= experts \(8\)" predict moe --gpu h100_sxm --tokens 4 --hidden 4096 --inter 14336 --experts 8 --topk 9
    expect_error "divisible by ep" predict moe --gpu h100_sxm --tokens 4 --hidden 4096 --inter 14336 --experts 8 --topk 2 --ep 3
    expect_error "divisible by tp" predict moe --gpu h100_sxm --tokens 4 --hidden 4096 --inter 14336 --experts 8 --topk 2 --tp 3
    expect_error "config expects 6 integers" predict moe --gpu h100_sxm --tokens 4 --hidden 4096 --inter 14336 --experts 8 --topk 2 --config 64,64,32
    expect_error "BLOCK_SIZE_M/N/K must be powers of two" predict moe --gpu h100_sxm --tokens 4 --hidden 4096 --inter 14336 --experts 8 --topk 2 --config 48,64,32,8,4,3
    expect_error "FP8 tensor cores" predict moe --gpu a100_sxm --tokens 4 --hidden 4096 --inter 14336 --experts 8 --topk 2 --dtype fp8
    # A token sweep from a CSV: the sizes the file lacks come from the flags; more tokens never run faster.
    printf 'tokens\n1\n64\n4096\n' > "$work/tokens.csv"
    out="$("$synperf" predict moe --gpu h100_sxm --csv "$work/tokens.csv" --hidden 4096 --inter 14336 --experts 8 --topk 2)" \
      || fail "predict moe --csv"
    [[ "$(wc -l <<<"$out")" -eq 4 && "$(head -1 <<<"$out")" == gpu,tokens,* ]] || fail "expected header + 3 rows, got: $out"
    awk -F, 'NR > 2 && $10 < prev { exit 1 } NR > 1 { prev = $10 }' <<<"$out" || fail "latency falls with tokens: $out"
    printf 'tokens,tp\n1,1\n8,3\n' > "$work/moe_bad.csv"
    expect_error "moe_bad.csv:3: moe: inter \(14336\) must be divisible by tp \(3\)" predict moe --gpu h100_sxm --csv "$work/moe_bad.csv" \
      --hidden 4096 --inter 14336 --experts 8 --topk 2;;
  predict_allreduce)
    # Embedded shipped model: no data directory needed.
    out="$(SYNPERF_DATA=/nonexistent "$synperf" predict allreduce --gpu h100_sxm --gpus 8 --bytes 1048576 --json)" || fail "predict allreduce"
    for key in latency_us efficiency theoretical_us algorithm alpha_beta_us algorithms system p2p_group_size; do
      grep -q "\"$key\"" <<<"$out" || fail "no $key in $out"
    done
    grep -q '"algorithm": "two_shot"' <<<"$out" || fail "SGLang's rule (8 GPUs, 1 MiB) is two-shot: $out"
    # A PCIe node without peer access: custom all-reduce is off, NCCL's ring crosses the host at 16 GB/s.
    out="$("$synperf" predict allreduce --gpu rtx_6000_ada --gpus 2 --bytes 1048576 --p2p-group 1 --host-bridge-gbps 16 --json)" \
      || fail "predict allreduce without peer access"
    grep -q '"p2p_group_size": 1' <<<"$out" || fail "P2P groups not applied: $out"
    grep -Eq '"algorithm": "(ring|tree)"' <<<"$out" || fail "custom all-reduce needs peer access: $out"
    grep -q 'no peer access' <<<"$("$synperf" predict allreduce --gpu rtx_6000_ada --gpus 2 --bytes 4096 --p2p-group 1 \
      --host-bridge-gbps 16)" || fail "text output does not say there is no peer access"
    # The L40S node keeps its calibrated P2P pairs when rebuilt at its own size and wiring.
    "$synperf" predict allreduce --gpu l40s --gpus 4 --bytes 4096 --topology pcie --json | grep -q '"p2p_group_size": 2' \
      || fail "l40s node lost its P2P groups"
    expect_error "describe a PCIe node; this node is nvswitch" predict allreduce --gpu h100_sxm --gpus 2 --bytes 4096 --p2p-group 1 \
      --host-bridge-gbps 16
    expect_error "p2p_group_size needs host_bridge_gbps > 0" predict allreduce --gpu rtx_pro_6000_server --gpus 2 --bytes 4096 --p2p-group 1
    expect_error "p2p_group_size must be in 0..gpus_per_node" predict allreduce --gpu rtx_pro_6000_server --gpus 2 --bytes 4096 \
      --p2p-group 9 --host-bridge-gbps 16
    expect_error "gpus must be <= the GPUs per node, 8" predict allreduce --gpu h100_sxm --gpus 16 --bytes 4096
    expect_error "bytes" predict allreduce --gpu h100_sxm --gpus 8 --bytes 0
    printf 'gpus,bytes\n2,4096\n8,1048576\n' > "$work/collectives.csv"
    out="$("$synperf" predict allreduce --gpu h100_sxm --csv "$work/collectives.csv")" || fail "predict allreduce --csv"
    [[ "$(wc -l <<<"$out")" -eq 3 && "$(grep -c '^h100_sxm,' <<<"$out")" -eq 2 ]] || fail "expected header + 2 rows, got: $out"
    # --json prints the rows as one JSON array, as the other families' --csv does.
    "$synperf" predict allreduce --gpu h100_sxm --csv "$work/collectives.csv" --json | grep -c '"latency_us"' | grep -qx 2 \
      || fail "predict allreduce --csv --json lacks two rows"
    printf 'gpus,bytes\n2,4096\n16,4096\n' > "$work/bad_collectives.csv"
    expect_error "bad_collectives.csv:3: .*gpus must be <= the GPUs per node, 8" predict allreduce --gpu h100_sxm --csv "$work/bad_collectives.csv"
    expect_error "give --gpus and --bytes, or --csv FILE" predict allreduce --gpu h100_sxm
    # Link overrides reach the node: an H100 without NVLink is a PCIe node.
    "$synperf" predict allreduce --gpu h100_sxm --gpus 8 --bytes 1048576 --set nvlink_gbps=0 --json | grep -q '"topology": "pcie"' \
      || fail "--set nvlink_gbps=0 did not reach the node"
    slow="$("$synperf" predict allreduce --gpu h100_sxm --gpus 8 --bytes 67108864 --set nvlink_gbps=100 --json | grep '"latency_us"')"
    fast="$("$synperf" predict allreduce --gpu h100_sxm --gpus 8 --bytes 67108864 --json | grep '"latency_us"')"
    [[ "$slow" != "$fast" ]] || fail "--set nvlink_gbps=100 left the latency unchanged: $fast"
    # Renaming a GPU keeps the node of the GPU it was taken from; another catalogue GPU's name is refused.
    expect_error "--set name=l40s: 'l40s' is the catalogue's l40s" predict allreduce --gpu h100_sxm --set name=l40s --gpus 4 --bytes 1048576
    stock="$("$synperf" predict allreduce --gpu h100_sxm --gpus 4 --bytes 1048576 --json | grep '^  "latency_us"')"
    for name in my_h100; do
      out="$("$synperf" predict allreduce --gpu h100_sxm --set name=$name --gpus 4 --bytes 1048576 --json)" || fail "--set name=$name"
      [[ "$(grep '^  "latency_us"' <<<"$out")" == "$stock" ]] || fail "--set name=$name changed the node: $out"
      grep -q "\"name\": \"${name}_nvswitch8\"" <<<"$out" || fail "--set name=$name: the node is not named after the GPU: $out"
    done;;
  allreduce_node_whatif)
    # The what-if of docs/families/allreduce.md (a PipeWeave node described without peer access) prints what the page says.
    need_data
    out="$(SYNPERF_BIN="$synperf" SYNPERF_DATA="$data" bash "$src/scripts/allreduce-node-whatif.sh" RTX_6000_Ada rtx_6000_ada \
      --p2p-group 1 --host-bridge-gbps 16)" || fail "allreduce-node-whatif.sh"
    grep -qxF "$out" "$src/docs/families/allreduce.md" || fail "docs/families/allreduce.md does not show '$out'";;
  eval_moe)
    need_data
    out="$("$synperf" eval moe --data "$data" --json)" || fail "eval moe"
    for gpu in h100_sxm b200_sxm l40s a100_sxm rtx_pro_6000_server b300_sxm gb300 h200_sxm gb200; do
      grep -q "\"gpu\": \"$gpu\"" <<<"$out" || fail "eval moe lacks $gpu"
    done;;
  moe_kernel)
    # One fused_moe_kernel launch with an explicit config; the embedded shipped model needs no data directory.
    out="$(SYNPERF_DATA=/nonexistent "$synperf" predict moe_kernel --gpu l40 --tokens 16 --hidden 4096 --inter 1536 --experts 128 \
      --topk 8 --block-m 16 --block-n 64 --block-k 128 --json)" || fail "predict moe_kernel"
    for key in latency_us efficiency theoretical_us grid_ctas empty_ctas smem_bytes num_tokens_post_padded active_experts; do
      grep -q "\"$key\"" <<<"$out" || fail "no $key in $out"
    done
    grep -q '"n": 3072' <<<"$out" || fail "w13 does not compute 2 x inter columns: $out"
    grep -q '"smem_bytes": 40960' <<<"$out" || fail "not num_stages - 1 tile buffers: $out"
    expect_error "needs the config" predict moe_kernel --gpu l40 --tokens 16 --hidden 4096 --inter 1536 --experts 128 --topk 8
    expect_error "BLOCK_SIZE_M/N/K must be powers of two" predict moe_kernel --gpu l40 --tokens 16 --hidden 4096 --inter 1536 \
      --experts 128 --topk 8 --block-m 24 --block-n 64 --block-k 128
    expect_error "shared memory per CTA" predict moe_kernel --gpu a40 --tokens 16 --hidden 4096 --inter 1536 --experts 128 --topk 8 \
      --block-m 256 --block-n 256 --block-k 128 --stages 4
    # A config sweep from a CSV: each row its own config; the measured column adds errors and a summary.
    printf 'tokens,block_m,block_n,block_k,num_stages,measured_us\n16,16,64,128,3,4301.7\n4096,128,128,64,3,2700\n' > "$work/mk.csv"
    out="$("$synperf" predict moe_kernel --gpu l40 --hidden 4096 --inter 1536 --experts 128 --topk 8 --csv "$work/mk.csv" 2>&1)" \
      || fail "predict moe_kernel --csv"
    grep -q "^l40,w13,16,4096,1536,128,8,16x64x128_g1_w4_s3," <<<"$out" || fail "row 1 not predicted: $out"
    grep -q "128x128x64_g1_w4_s3" <<<"$out" || fail "row 2 config not used: $out"
    grep -q "measured on l40: 2 rows" <<<"$out" || fail "no summary: $out"
    printf 'tokens,block_m\n1,16\n0,16\n' > "$work/mk_bad.csv"
    expect_error "mk_bad.csv:3: column 'tokens': expected a positive integer, got '0'" predict moe_kernel --gpu l40 --hidden 4096 \
      --inter 1536 --experts 128 --topk 8 --block-n 64 --block-k 64 --csv "$work/mk_bad.csv"
    # A malformed measurement file names its file, line and column.
    mkdir -p "$work/mk_data/pipeweave/moe_dse"
    printf 'weight_type,M,E,topk,H,N,BLOCK_SIZE_M,BLOCK_SIZE_N,BLOCK_SIZE_K,GROUP_SIZE_M,num_warps,num_stages,avg_duration,sample_count\nw13,1,8,2,1024,512,16,32,128,1,99999,3,5.0,3\n' \
      > "$work/mk_data/pipeweave/moe_dse/moe_dse_H800_99.csv"
    expect_error "moe_dse_H800_99.csv:2: column 'num_warps': expected a config value <= 4096, got 99999" eval moe_kernel --data "$work/mk_data"
    printf 'weight_type,M,E,topk,H,N,BLOCK_SIZE_M,BLOCK_SIZE_N,BLOCK_SIZE_K,GROUP_SIZE_M,num_warps,num_stages,avg_duration,sample_count\nw5,1,8,2,1024,512,16,32,128,1,4,3,5.0,3\n' \
      > "$work/mk_data/pipeweave/moe_dse/moe_dse_H800_99.csv"
    expect_error "moe_dse_H800_99.csv:2: column 'weight_type': expected w13 or w2, got 'w5'" eval moe_kernel --data "$work/mk_data"
    if [[ -n "$data" && -d "$data/pipeweave/moe_dse" ]]; then
      out="$("$synperf" eval moe_kernel --data "$data" --json)" || fail "eval moe_kernel"
      for gpu in a100_sxm a40 h20 h800 l40 rtx_pro_6000_server; do
        grep -q "\"gpu\": \"$gpu\"" <<<"$out" || fail "eval moe_kernel lacks $gpu"
      done
    fi;;
  fp8_linear)
    # Embedded shipped model: no data directory needed.
    out="$(SYNPERF_DATA=/nonexistent "$synperf" predict fp8_linear --gpu l40s --m 4 --n 4096 --k 4096 --json)" || fail "predict fp8_linear"
    grep -q '"cuda_core_gemm": true' <<<"$out" || fail "sm_89 m <= 8 does not take the CUDA-core GEMM: $out"
    grep -q '"name": "computeFP8QuantizeScale_per_tensor"' <<<"$out" || fail "TensorRT-LLM amax kernel missing: $out"
    out="$("$synperf" predict fp8_linear --gpu h100_sxm --m 256 --n 8192 --k 4096 --framework sglang)" || fail "predict fp8_linear sglang"
    grep -q "per_token_quant_fp8" <<<"$out" || fail "SGLang per-token quantization missing: $out"
    expect_error "m must be > 0, got 0" predict fp8_linear --gpu h100_sxm --m 0 --n 4096 --k 4096
    expect_error "k must be a multiple of 16" predict fp8_linear --gpu h100_sxm --m 8 --n 4096 --k 4100
    expect_error "no FP8 tensor cores" predict fp8_linear --gpu a100_sxm --m 8 --n 4096 --k 4096
    expect_error "unknown framework 'vllm'; known: trtllm, sglang" predict fp8_linear --gpu h100_sxm --m 8 --n 4096 --k 4096 --framework vllm
    need_data
    out="$("$synperf" eval fp8_linear --data "$data" --json)" || fail "eval fp8_linear"
    for gpu in h100_sxm b200_sxm l40s rtx_pro_6000_server b300_sxm gb300 h200_sxm gb200; do
      grep -q "\"gpu\": \"$gpu\"" <<<"$out" || fail "eval fp8_linear lacks $gpu"
    done;;
  calibrate)
    # A correction fitted on measured rows of one GPU (the H200 GEMMs in bench/measure), applied to other rows; one fit
    # per GPU of a list; bad files name their line.
    measured="$src/bench/measure/h200_sxm/gemm_bf16.csv"
    head -11 "$measured" > "$work/fit.csv"
    { echo m,n,k; tail -n +12 "$measured" | cut -d, -f1-3; } > "$work/rest.csv"
    "$synperf" predict gemm --gpu h200_sxm --csv "$work/fit.csv" > "$work/fit_pred.csv" 2>/dev/null || fail "predict the fitted rows"
    # Nanoseconds in measured_us: the fit is made, with a warning that the unit looks wrong.
    awk -F, -v OFS=, 'NR == 1 {for (i = 1; i <= NF; ++i) if ($i == "measured_us") c = i; print; next} {$c = $c * 1000; print}' \
      "$work/fit_pred.csv" > "$work/fit_pred_ns.csv"
    "$synperf" calibrate --fit "$work/fit_pred_ns.csv" 2>&1 >/dev/null | grep -q "^warning: GPU h200_sxm: the median row measured .* is measured_us in microseconds" \
      || fail "no unit warning for a fit on nanoseconds"
    "$synperf" predict gemm --gpu h200_sxm --csv "$work/rest.csv" > "$work/rest_pred.csv" || fail "predict the other rows"
    out="$("$synperf" calibrate --fit "$work/fit_pred.csv")" || fail "calibrate --fit"
    row="$(grep -E '^\| h200_sxm \| 10 \| [0-9.]+ \| [0-9.]+ \| (none|scale|trend) \| ' <<<"$out")" || fail "no h200_sxm fit: $out"
    # The chosen form is never worse than the model on the rows left out one at a time.
    awk -F'|' '{ exit !($5 + 0 <= $4 + 0) }' <<<"$row" || fail "the fit is worse than the model: $row"
    json="$("$synperf" calibrate --fit "$work/fit_pred.csv" --json)" || fail "calibrate --json"
    grep -q '"loo_mape_after"' <<<"$json" || fail "calibrate --json lacks loo_mape_after: $json"
    out="$("$synperf" calibrate --fit "$work/fit_pred.csv" --apply "$work/rest_pred.csv" 2>/dev/null)" || fail "calibrate --apply"
    [[ "$(head -1 <<<"$out")" == "$(head -1 "$work/rest_pred.csv"),calibrated_us" ]] || fail "header: $(head -1 <<<"$out")"
    [[ "$(wc -l <<<"$out")" -eq "$(wc -l < "$work/rest_pred.csv")" ]] || fail "apply lost rows"
    # Every row is the input row plus a positive time.
    paste -d'|' "$work/rest_pred.csv" <(cat <<<"$out") | awk -F'|' 'NR > 1 { n = split($2, f, ","); if (index($2, $1 ",") != 1 || f[n] + 0 <= 0) bad = 1 } END { exit bad }' \
      || fail "apply changed a row or wrote no time: $out"
    # A list of GPUs gets one fit per GPU, and a row of a GPU without one is refused.
    "$synperf" predict gemm --gpu h200_sxm,h100_sxm --csv "$work/fit.csv" > "$work/two_pred.csv" 2>/dev/null || fail "predict two GPUs"
    [[ "$("$synperf" calibrate --fit "$work/two_pred.csv" | grep -cE '^\| (h200_sxm|h100_sxm) \| 10 \|')" -eq 2 ]] || fail "not one fit per GPU"
    "$synperf" predict gemm --gpu b200_sxm --csv "$work/rest.csv" > "$work/b200_pred.csv" || fail "predict b200"
    expect_error "^synperf: [^ ]*b200_pred.csv:2: no calibration for GPU 'b200_sxm'; the --fit file calibrates: h100_sxm, h200_sxm" \
      calibrate --fit "$work/two_pred.csv" --apply "$work/b200_pred.csv"
    expect_error "rest_pred.csv:1: expected a column 'measured_us'" calibrate --fit "$work/rest_pred.csv"
    # A GEMM correction is not applied to another family's predictions.
    printf 'tokens\n64\n' > "$work/tokens.csv"
    "$synperf" predict rmsnorm --gpu h200_sxm --hidden 4096 --csv "$work/tokens.csv" > "$work/rmsnorm_pred.csv" 2>/dev/null \
      || fail "predict rmsnorm"
    expect_error "rmsnorm_pred.csv:1: expected the columns of the --fit file's predict command \\(gpu,m,n,k,latency_us," \
      calibrate --fit "$work/fit_pred.csv" --apply "$work/rmsnorm_pred.csv"
    head -2 "$work/fit_pred.csv" > "$work/one_pred.csv"
    expect_error "one_pred.csv:2: GPU h200_sxm has 1 measured row; a calibration needs at least 2 per GPU" calibrate --fit "$work/one_pred.csv"
    sed '3s/,[0-9.]*,[-+0-9.]*$/,nan,+0.00/' "$work/fit_pred.csv" > "$work/nan_pred.csv"
    expect_error "nan_pred.csv:3: column 'measured_us': expected a finite number" calibrate --fit "$work/nan_pred.csv"
    expect_error "with --apply the output is the CSV" calibrate --fit "$work/fit_pred.csv" --apply "$work/rest_pred.csv" --json
    expect_error "cannot open|not a regular file|No such file" calibrate --fit "$work/missing.csv"
    head -1 "$work/rest_pred.csv" > "$work/no_rows_pred.csv"
    expect_error "no_rows_pred.csv:1: expected at least one data row" calibrate --fit "$work/fit_pred.csv" --apply "$work/no_rows_pred.csv"
    # What a few measurements buy on a held-out GPU: eval --calibrate scores the rows the fit did not see.
    if [[ -d "$data/aiconfigurator" ]]; then
      out="$("$synperf" eval gemm --data "$data" --calibrate 16)" || fail "eval --calibrate"
      rtx="$(grep -E '^\| rtx_5090 \| vllm \| unseen-arch \| [0-9]+ \| [0-9.]+ \| [0-9.]+ \| (none|scale|trend) \|$' <<<"$out")" \
        || fail "no calibrated rtx_5090 row: $out"
      awk -F'|' '{ exit !($7 + 0 < $6 + 0) }' <<<"$rtx" || fail "calibration did not help the RTX 5090: $rtx"
      # Another draw of the 16 rows: another table, the same rows scored.
      out1="$("$synperf" eval gemm --data "$data" --calibrate 16 --calibrate-draw 1)" || fail "eval --calibrate-draw 1"
      grep -q '^Few-shot calibration (--calibrate 16, draw 1)' <<<"$out1" || fail "no draw 1 table: $out1"
      [[ "$(grep -c '^| rtx_5090 | vllm | unseen-arch | 34759 |' <<<"$out1")" -eq 1 ]] || fail "draw 1 scores another row count"
      expect_error "calibrate-draw" eval gemm --data "$data" --calibrate 16 --calibrate-draw -1
      json="$("$synperf" eval gemm --data "$data" --calibrate 16 --json)" || fail "eval --calibrate --json"
      grep -q '"calibrated"' <<<"$json" || fail "no calibrated field in JSON"
    else
      echo "SKIPPED part: eval --calibrate needs measured data at $data"
    fi
    echo "ok: calibrate";;
  eval_by_size)
    # --by-size splits every (GPU, framework) row by measured latency: the buckets hold all of its rows.
    need_data
    out="$("$synperf" eval rmsnorm --data "$data" --by-size)" || fail "eval --by-size"
    for gpu in a100_sxm a40 h100_sxm; do
      total="$(grep -E "^\| $gpu \| [^|]+ \| [^|]+ \| [^|]+ \| [0-9]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|$" <<<"$out" |
               awk -F'|' '{print $6 + 0}')"
      sum="$(grep -E "^\| $gpu \| [^|]+ \| loo \| \[" <<<"$out" | awk -F'|' '{s += $6} END {print s + 0}')"
      [[ -n "$total" && "$total" -gt 0 && "$sum" -eq "$total" ]] || fail "$gpu: buckets hold $sum rows, the table $total"
    done
    json="$("$synperf" eval rmsnorm --data "$data" --by-size --json)" || fail "eval --by-size --json"
    grep -q '"by_size"' <<<"$json" || fail "no by_size in the JSON"
    grep -q '"median_efficiency"' <<<"$json" || fail "no median_efficiency in the JSON"
    echo "ok: --by-size buckets add up";;
  timer_lattice)
    # scripts/timer-lattice.sh finds the Blackwell attention tables' 2.05 us lattice, none on Hopper, and prints the
    # figures docs/families/attention.md publishes for RTX PRO 6000's decode.
    need_data
    out="$(bash "$src/scripts/timer-lattice.sh" "$synperf" "$data" attention_decode)" || fail "timer-lattice.sh"
    rtx="$(grep -E '^\| attention_decode \| rtx_pro_6000_server \| trtllm \| ' <<<"$out")" || fail "no RTX PRO 6000 row: $out"
    awk -F'|' '{ exit !($7 >= 0.5 && $8 > 2.0 && $8 < 2.1) }' <<<"$rtx" || fail "no 2.05 us lattice on RTX PRO 6000: $rtx"
    grep -qE '^\| attention_decode \| h100_sxm \| trtllm \| .*\| — \| [0-9.]+ \| — \|$' <<<"$out" || fail "a lattice on H100: $out"
    doc_row="$(grep -F 'RTX PRO 6000 decode, SGLang / TensorRT-LLM' "$src/docs/families/attention.md")"
    published="$(awk -F'|' '{ split($6, b, " / "); split($5, m, " / "); gsub(/ /, "", m[2]); gsub(/ /, "", b[2]); print m[2], b[2] }' <<<"$doc_row")"
    measured="$(awk -F'|' '{ gsub(/ /, "", $9); gsub(/ /, "", $10); print $9, $10 }' <<<"$rtx")"
    [[ "$published" == "$measured" ]] || fail "attention.md publishes MAPE / beyond '$published', the script prints '$measured'"
    echo "ok: lattice found where published ($measured)";;
  published_tables)
    # Every accuracy row and seen-mean line that docs/accuracy.md, docs/families/*.md and docs/calibration.md publish is
    # printed, character for character, by `synperf eval` with the committed protocol weights: the tables cannot drift
    # from the models.
    need_data
    evals="$work/all_evals.txt"
    : > "$evals"
    # Every family with protocol weights (models/protocol/<family>.mlp or <family>.loo-<gpu>.mlp).
    families="$(for f in "$src"/models/protocol/*.mlp; do basename "$f" | cut -d. -f1; done | sort -u)"
    [[ -n "$families" ]] || fail "no protocol weights under $src/models/protocol"
    for fam in $families; do
      "$synperf" eval "$fam" --data "$data" --calibrate 16 >> "$evals" 2>/dev/null || fail "eval $fam"
    done
    checked=0
    for doc in "$src/README.md" "$src/docs/accuracy.md" "$src"/docs/families/*.md; do
      # Accuracy rows: | gpu | framework | kernel | split | rows | MAPE | P90 | roofline | linear | eff>1 % |
      while IFS= read -r row; do
        grep -qxF -- "$row" "$evals" || fail "${doc#"$src"/}: no eval prints the row '$row'"
        checked=$((checked + 1))
      done < <(grep -E '^\| [a-z0-9_]+ \| ' "$doc" | awk -F'|' 'NF == 12')
      while IFS= read -r mean; do
        grep -qF -- "$mean" "$evals" || fail "${doc#"$src"/}: no eval prints '$mean'"
        checked=$((checked + 1))
      done < <(grep -ioE '^seen mean over \(GPU, framework\): MAPE [0-9.]+ %, P90 [0-9.]+ %' "$doc" |
               sed 's/^Seen/seen/')
    done
    # docs/calibration.md: the few-shot rows | gpu | framework | split | scored | MAPE | calibrated | form |, as
    # `synperf eval <family> --calibrate 16` prints them.
    calibrated=0
    while IFS= read -r row; do
      grep -qxF -- "$row" "$evals" || fail "docs/calibration.md: no eval --calibrate 16 prints the row '$row'"
      calibrated=$((calibrated + 1))
    done < <(grep -E '^\| [a-z0-9_]+ \| ' "$src/docs/calibration.md" | awk -F'|' 'NF == 9')
    [[ $calibrated -ge 40 ]] || fail "only $calibrated calibration rows found in docs/calibration.md; the table format changed?"
    checked=$((checked + calibrated))
    # The all-families summary in README.md: | family | seen | worst sibling | … | better than linear |
    "$synperf" eval summary --data "$data" > "$work/summary.txt" 2>/dev/null || fail "eval summary"
    summary_rows=0
    while IFS= read -r row; do
      grep -qxF -- "$row" "$work/summary.txt" || fail "README.md: synperf eval summary does not print '$row'"
      summary_rows=$((summary_rows + 1))
    done < <(grep -E "^\| ($(tr '\n' '|' <<<"$families" | sed 's/|$//')) \| " "$src/README.md" | awk -F'|' 'NF == 10')
    [[ $summary_rows -eq $(wc -w <<<"$families") ]] || fail "README.md shows $summary_rows summary rows, expected one per family"
    [[ "$("$synperf" eval summary --data "$data" --json 2>/dev/null | grep -c '"better_than_linear"')" -eq $(wc -w <<<"$families") ]] \
      || fail "eval summary --json: expected one entry per family"
    checked=$((checked + summary_rows))
    [[ $checked -ge 100 ]] || fail "only $checked published rows found; the table format changed?"
    echo "ok: $checked published rows, seen means and summary rows match synperf eval";;
  *) fail "unknown case $case";;
esac
echo "passed: $case"
