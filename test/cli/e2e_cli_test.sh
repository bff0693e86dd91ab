#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end checks of `synperf e2e`. Usage: e2e_cli_test.sh <synperf> <source-dir> <work-dir> <case>
# Exit 77 = skipped (no measured data, or a family without shipped weights in this build); the message says why.
set -uo pipefail
synperf="$1" src="$2" work="$3/$4" case="$4"
mkdir -p "$work"  # one folder per case: CTest runs cases in parallel
data="${SYNPERF_DATA:-$src/../shared/data}"

fail() { echo "FAIL: $*"; exit 1; }
# expect_error <regex> <args...>: the command must exit non-zero and print the regex on stderr.
expect_error() {
  local pattern="$1"; shift
  local out; out="$("$synperf" "$@" 2>&1)"; local rc=$?
  [[ $rc -eq 2 ]] || fail "'$*' exited $rc, expected 2 (bad input)"
  grep -Eq -e "$pattern" <<<"$out" || fail "'$*' printed '$out', expected /$pattern/"
  echo "ok: $* -> $out"
}
# skip_without_weights <output>: a run refused for want of a family's weights is skipped, not failed.
skip_without_weights() {
  if grep -q "no trained weights for the" <<<"$1"; then echo "SKIPPED: $1"; exit 77; fi
}

case "$case" in
  e2e_bad_input)
    expect_error "TP 16 spans more than one node \(h100_sxm.* has 8 GPUs\)" e2e --model qwen3-32b --gpu h100_sxm --tp 16 --prompt-lens 100
    expect_error "unknown model 'gpt-9'; known: llama-3-8b" e2e --model gpt-9 --gpu h100_sxm --prompt-lens 100
    expect_error "64 query heads, which do not split over TP 3" e2e --model qwen3-32b --gpu h100_sxm --tp 3 --prompt-lens 100
    expect_error "expert parallelism needs a MoE model; llama-3.1-8b is dense" e2e --model llama-3.1-8b --gpu h100_sxm --tp 2 --ep 2 --prompt-lens 100
    expect_error "expert-parallel degree \(3\) must divide TP \(4\)" e2e --model qwen3-30b-a3b --gpu h100_sxm --tp 4 --ep 3 --prompt-lens 100
    expect_error "expert-parallel degree must be in 1..TP \(2\), got 0" e2e --model qwen3-30b-a3b --gpu h100_sxm --tp 2 --ep 0 --prompt-lens 100
    expect_error "does not fit in GPU memory: needs .* but the GPU has .*; the weights alone leave no room" \
      e2e --model llama-3.1-70b --gpu h100_sxm --tp 1 --prompt-lens 100 --decode-steps 4
    expect_error "a batch of at most [0-9]+ requests" \
      e2e --model llama-3.1-8b --gpu l4 --batch 64 --prompt-len 4096 --decode-steps 128
    expect_error "bad_syntax.json:5:21: syntax error while parsing object - unexpected string literal; expected '\}'" e2e --model "$src/test/data/e2e/bad_syntax.json" --gpu h100_sxm --prompt-lens 1
    expect_error "prompt length of request 1 must be in 1..2\^24, got 0" e2e --model qwen2.5-14b --gpu h100_sxm --prompt-lens 100,0
    expect_error "give --prompt-lens, or --batch and --prompt-len" e2e --model qwen2.5-14b --gpu h100_sxm
    # A batch no server holds is refused before the prompts are listed (a billion of them would take gigabytes).
    expect_error "e2e: --batch must be at most 65536, got 1000000000" e2e --model qwen2.5-14b --gpu h100_sxm --batch 1000000000 --prompt-len 10
    expect_error "synperf: --prompt-lens: expected comma-separated integers, got '1,,2'" e2e --model qwen2.5-14b --gpu h100_sxm --prompt-lens 1,,2
    # config.json integers are checked against the int the model holds, not wrapped.
    sed 's/"num_hidden_layers": [0-9]*/"num_hidden_layers": 4294967328/' "$src/test/data/e2e/mixtral-8x7b.json" > "$work/wrap.json"
    expect_error "wrap.json:[0-9]+: expected at most 2147483647 for \"num_hidden_layers\", got 4294967328" \
      e2e --model "$work/wrap.json" --gpu h100_sxm --prompt-lens 10
    # A field that is missing, of another type or negative is named with its file and line; bad syntax gets a column too.
    sed '/"num_attention_heads"/d' "$src/test/data/e2e/mixtral-8x7b.json" > "$work/heads.json"
    expect_error "heads.json: expected the field \"num_attention_heads\", got none" e2e --model "$work/heads.json" --gpu h100_sxm --prompt-lens 10
    sed 's/"num_attention_heads": 32/"num_attention_heads": "32"/' "$src/test/data/e2e/mixtral-8x7b.json" > "$work/heads.json"
    expect_error "heads.json:12: expected a non-negative integer for \"num_attention_heads\", got a non-number" \
      e2e --model "$work/heads.json" --gpu h100_sxm --prompt-lens 10
    sed 's/"num_attention_heads": 32/"num_attention_heads": -32/' "$src/test/data/e2e/mixtral-8x7b.json" > "$work/heads.json"
    expect_error "heads.json:12: expected a non-negative integer for \"num_attention_heads\", got -32" \
      e2e --model "$work/heads.json" --gpu h100_sxm --prompt-lens 10
    sed 's/"num_attention_heads": 32,/"num_attention_heads": 32,,/' "$src/test/data/e2e/mixtral-8x7b.json" > "$work/heads.json"
    expect_error "heads.json:12:29: syntax error while parsing object key - unexpected ','; expected string literal" \
      e2e --model "$work/heads.json" --gpu h100_sxm --prompt-lens 10
    : > "$work/empty.json"
    expect_error "empty.json:1:1: syntax error while parsing value - unexpected end of input" e2e --model "$work/empty.json" --gpu h100_sxm --prompt-lens 10
    sed 's/"tie_word_embeddings": [a-z]*/"tie_word_embeddings": "yes"/' "$src/test/data/e2e/mixtral-8x7b.json" > "$work/tie.json"
    expect_error "expected true or false for \"tie_word_embeddings\"" e2e --model "$work/tie.json" --gpu h100_sxm --prompt-lens 10
    sed 's/"max_position_embeddings": [0-9]*/"max_position_embeddings": 0/' "$src/test/data/e2e/mixtral-8x7b.json" > "$work/maxpos.json"
    expect_error "expected max_position_embeddings > 0 \(leave it out when unknown\), got 0" e2e --model "$work/maxpos.json" --gpu h100_sxm --prompt-lens 10
    expect_error "requests x decode steps must be at most 2\^33 generated tokens, got 65536 x 1000000 = 65536000000" \
      e2e --model qwen2.5-7b --gpu h100_sxm --batch 65536 --prompt-len 1 --decode-steps 1000000 --no-memory-check
    expect_error "--framework trtllm runs TensorRT-LLM's own attention kernels; --attention triton" \
      e2e --model qwen2.5-7b --gpu h100_sxm --framework trtllm --attention triton --prompt-lens 10
    # Development sets: an error names its case; measured times must be positive.
    printf '{"cases": [}' > "$work/syntax_dev.json"
    expect_error "syntax_dev.json:1:12: syntax error while parsing value - unexpected '\}'" e2e --dev-set "$work/syntax_dev.json"
    printf '{"cases": []}' > "$work/empty_dev.json"
    expect_error "empty_dev.json: expected at least one case" e2e --dev-set "$work/empty_dev.json"
    printf '{"cases": [{"gpu": "H800", "model": "qwen2.5-14b"}]}' > "$work/short_dev.json"
    expect_error "short_dev.json: case 1 \(H800, qwen2.5-14b\): expected field \"model_params\"" e2e --dev-set "$work/short_dev.json"
    # Every field has its type and range checked: nothing is truncated or ignored.
    dev_case() {  # dev_case FIELD=JSON: a Qwen2.5-14B case on H800 with one field replaced
      local c='{"gpu": "H800", "model": "qwen2.5-14b", "tp": 1, "pp": 1, "attention": "fa3", "framework": "sglang",
        "model_params": {"hidden_size": 5120, "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
                         "intermediate_size": 13824, "vocab_size": 152064, "num_hidden_layers": 48},
        "prompt_lengths": [100, 200], "decode_steps": 4,
        "real": {"prefill_ms": 30, "decode_median_ms": 20, "total_ms": 110, "batch_size": 2}}'
      [[ $# -eq 0 ]] && { echo "$c"; return; }
      sed -E "s/\"${1%%=*}\": [^,}]+/\"${1%%=*}\": ${1#*=}/" <<<"$c"
    }
    printf '{"cases": [%s]}' "$(dev_case)" > "$work/one_dev.json"
    expect_error "one_dev.json: expected at least two cases" e2e --dev-set "$work/one_dev.json"
    for bad in 'tp=1.5|expected field "tp" to be an integer, got 1.5' 'pp=2|expected "pp": 1 \(pipeline parallelism is not modelled\)' \
               'attention="bogus"|expected "attention" "fa2" or "fa3"' 'batch_size=3|expected real.batch_size to equal the 2 prompt_lengths, got 3' \
               'head_dim=64|expected model_params.head_dim of qwen2.5-14b to match the built-in .* \(128\), got 64' \
               'decode_steps=0|expected "decode_steps" >= 1 \(a measured decode step\), got 0' \
               'total_ms=1|expected real.total_ms \(1\) to be at least real.prefill_ms \+ real.decode_median_ms \(50\)' \
               'prefill_ms=1e308|expected real.prefill_ms in 0.001 .. 8.64e7 ms \(a microsecond to a day\), got 1e\+308' \
               'batch_size=2, "total_prefill_tokens": 301|expected real.total_prefill_tokens to equal the sum of prompt_lengths, 300, got 301' \
               'decode_steps=4, "output_len": 4|expected "output_len" to be decode_steps \+ 1 = 5, got 4'; do
      printf '{"cases": [%s, %s]}' "$(dev_case)" "$(dev_case "${bad%%|*}")" > "$work/bad_dev.json"
      expect_error "bad_dev.json: case 2 \(H800, qwen2.5-14b\): ${bad#*|}" e2e --dev-set "$work/bad_dev.json"
    done
    float_case="$(dev_case)"
    printf '{"cases": [%s]}' "${float_case/\[100, 200\]/[100.7]}" > "$work/float_dev.json"
    expect_error "expected field \"prompt_lengths\[0\]\" to be an integer, got 100.7" e2e --dev-set "$work/float_dev.json";;
  e2e_predict)
    out="$("$synperf" e2e --model qwen2.5-14b --gpu h800 --framework sglang --attention flashinfer \
            --prompt-lens 2648,3740,3761 --decode-steps 5 --json 2>&1)"; rc=$?
    [[ $rc -eq 0 ]] || { skip_without_weights "$out"; fail "e2e: $out"; }
    for key in prefill_ms decode_median_ms decode_step_ms total_ms memory_gb breakdown families_ms; do
      grep -q "\"$key\"" <<<"$out" || fail "no $key in $out"
    done
    # A config.json path gives the same run as the built-in name.
    cfg="$data/pipeweave/models/Qwen2.5-14B.json"
    if [[ -f "$cfg" ]]; then
      a="$("$synperf" e2e --model qwen2.5-14b --gpu h800 --prompt-lens 1000 --decode-steps 2 --json | grep '"total_ms"' | tail -1)"
      b="$("$synperf" e2e --model "$cfg" --gpu h800 --prompt-lens 1000 --decode-steps 2 --json | grep '"total_ms"' | tail -1)"
      [[ "$a" == "$b" ]] || fail "config.json path and built-in name differ: $a vs $b"
    fi
    "$synperf" e2e --model llama-3.1-70b --gpu h20 --tp 8 --batch 4 --prompt-len 1000 --decode-steps 3 | grep -q "decode step median" \
      || fail "human-readable table"
    # A config.json field the generator does not model is a note on stderr and an entry in the JSON.
    printf '%s' '{"model_type":"mistral","hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,"num_attention_heads":32,
      "num_key_value_heads":8,"vocab_size":32000,"max_position_embeddings":32768,"sliding_window":4096}' > "$work/mistral.json"
    out="$("$synperf" e2e --model "$work/mistral.json" --gpu h100_sxm --prompt-lens 100 --decode-steps 1 --json 2>"$work/notes.txt")"; rc=$?
    [[ $rc -eq 0 ]] || { skip_without_weights "$out"; fail "mistral: $out"; }
    grep -q "note: .*mistral.json: sliding_window 4096: attention over a sliding window is not modelled" "$work/notes.txt" \
      || fail "no sliding-window note: $(cat "$work/notes.txt")"
    grep -q '"unmodelled"' <<<"$out" || fail "no unmodelled list in $out"
    # An activation other than SiLU is said, not silently predicted as SiLU.
    sed 's/"sliding_window":4096/"hidden_act":"gelu"/' "$work/mistral.json" > "$work/gelu.json"
    "$synperf" e2e --model "$work/gelu.json" --gpu h100_sxm --prompt-lens 100 --decode-steps 1 2>&1 >/dev/null \
      | grep -q "note: .*gelu.json: hidden_act 'gelu': only SiLU is modelled" || fail "no note for hidden_act gelu"
    # A GPU renamed with --set keeps its node: the tensor-parallel all-reduces are the same.
    stock="$("$synperf" e2e --model llama-3.1-8b --gpu h100_sxm --tp 2 --prompt-lens 100 --decode-steps 1 --json 2>&1)"
    skip_without_weights "$stock"
    renamed="$("$synperf" e2e --model llama-3.1-8b --gpu h100_sxm --set name=my_h100 --tp 2 --prompt-lens 100 --decode-steps 1 --json 2>&1)" \
      || fail "e2e --set name=my_h100: $renamed"
    [[ "$(grep -o '"total_ms": [0-9.e+-]*' <<<"$stock")" == "$(grep -o '"total_ms": [0-9.e+-]*' <<<"$renamed")" ]] \
      || fail "--set name changed the run: $(grep -o '"total_ms": [0-9.e+-]*' <<<"$renamed")"
    # A MoE model (a config.json fixture): its blocks come from the moe family.
    out="$("$synperf" e2e --model "$src/test/data/e2e/mixtral-8x7b.json" --gpu h100_sxm --tp 2 --prompt-lens 100,300 --decode-steps 2 --json 2>&1)"; rc=$?
    [[ $rc -eq 0 ]] || { skip_without_weights "$out"; fail "mixtral: $out"; }
    grep -q '"moe"' <<<"$out" || fail "no moe in the breakdown: $out"
    # Expert parallelism: whole experts per GPU, the same weight memory, EP in the header and the JSON.
    out="$("$synperf" e2e --model "$src/test/data/e2e/mixtral-8x7b.json" --gpu h100_sxm --tp 2 --ep 2 --prompt-lens 100 --decode-steps 2 2>&1)" \
      || fail "mixtral --ep 2: $out"
    grep -q "TP 2 (EP 2)" <<<"$out" || fail "no EP in the header: $out"
    tp_weights="$("$synperf" e2e --model "$src/test/data/e2e/mixtral-8x7b.json" --gpu h100_sxm --tp 2 --prompt-lens 100 | grep -o 'weights [0-9.]*')"
    grep -qF "$tp_weights" <<<"$out" || fail "EP 2 changed the weight memory ($tp_weights): $out"
    out="$("$synperf" e2e --model "$src/test/data/e2e/mixtral-8x7b.json" --gpu h100_sxm --tp 2 --ep 2 --prompt-lens 100 --json)" \
      || fail "mixtral --ep 2 --json: $out"
    grep -q '"ep": 2' <<<"$out" || fail "no ep in the JSON: $out";;
  e2e_compare)
    # One run on several GPUs: a row each; a GPU the run does not fit gets its reason, not numbers.
    out="$("$synperf" e2e --model qwen2.5-14b --gpu h100_sxm,b200_sxm,l4 --batch 8 --prompt-len 3500 --decode-steps 4 2>&1)"; rc=$?
    [[ $rc -eq 0 ]] || { skip_without_weights "$out"; fail "compare: $out"; }
    echo "$out"
    for g in h100_sxm b200_sxm; do grep -Eq "^  $g +[a-z0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+ " <<<"$out" || fail "no row for $g"; done
    grep -Eq "^  l4 .*cannot run: e2e: .*does not fit in GPU memory" <<<"$out" || fail "l4 should not fit: $out"
    # The families whose models had no measurement of a GPU are named once for it (B200: RMSNorm's and SiLU&Mul's).
    grep -q "^note: no measurement of b200_sxm trained the rmsnorm, silu_mul models: " <<<"$out" || fail "no note for b200_sxm: $out"
    ! grep -q "^note: no measurement of h100_sxm" <<<"$out" || fail "h100_sxm is measured by every family: $out"
    notes="$("$synperf" e2e --model qwen2.5-14b --gpu b200_sxm,h100_sxm,gb200 --batch 8 --prompt-len 3500 --decode-steps 4 2>&1 >/dev/null)"
    [[ "$notes" == "note: no measurement of b200_sxm, gb200 trained the rmsnorm, silu_mul models: "* ]] \
      || fail "expected one note for both GPUs of the same families: $notes"
    json="$("$synperf" e2e --model qwen2.5-14b --gpu h100_sxm,a100_sxm --batch 8 --prompt-len 3500 --decode-steps 4 --json)" || fail "json"
    [[ "$(grep -c '"decode_tokens_per_s"' <<<"$json")" -eq 2 ]] || fail "expected 2 GPU rows in $json"
    [[ "$(grep -c '"spec_only_families": \[\]' <<<"$json")" -eq 2 ]] || fail "A100 and H100 are measured by every family of this run: $json"
    # The same GPU alone gives the same total as in the comparison.
    a="$("$synperf" e2e --model qwen2.5-14b --gpu a100_sxm --batch 8 --prompt-len 3500 --decode-steps 4 | awk '$1 == "total" { print $2 }')"
    b="$("$synperf" e2e --model qwen2.5-14b --gpu h100_sxm,a100_sxm --batch 8 --prompt-len 3500 --decode-steps 4 | awk '$1 == "a100_sxm" { print $5 }')"
    [[ -n "$a" && "$a" == "$b" ]] || fail "a100_sxm alone ($a ms) and in the comparison ($b ms) differ"
    [[ "$("$synperf" e2e --model llama-3.1-8b --gpu all --batch 1 --prompt-len 128 --decode-steps 1 | grep -c '^  [a-z]')" -eq 23 ]] \
      || fail "--gpu all: expected the header and 22 GPU rows"
    expect_error "unknown GPU 'h900'" e2e --model qwen2.5-14b --gpu h100_sxm,h900 --prompt-lens 100
    expect_error "has an empty GPU name" e2e --model qwen2.5-14b --gpu h100_sxm, --prompt-lens 100;;
  e2e_dev_set)
    [[ -f "$data/e2e_dev.json" ]] || { echo "SKIPPED: no $data/e2e_dev.json (set SYNPERF_DATA)"; exit 77; }
    out="$("$synperf" e2e --dev-set "$data/e2e_dev.json" 2>&1)"; rc=$?
    [[ $rc -eq 0 ]] || { skip_without_weights "$out"; fail "dev set: $out"; }
    echo "$out"
    [[ "$(grep -c '%' <<<"$out")" -ge 3 ]] || fail "expected one row per case"
    # The development-set table of docs/e2e.md (and any that README.md shows) is this output: every "predicted / measured (error)"
    # cell of a published row must appear in the command's row for that GPU and model.
    checked=0
    for doc in "$src/README.md" "$src/docs/e2e.md"; do
      while IFS= read -r row; do
        gpu="$(awk -F'|' '{gsub(/ /, "", $2); print $2}' <<<"$row")"
        model="$(awk -F'|' '{gsub(/ /, "", $3); print $3}' <<<"$row")"
        line="$(grep -E "^$gpu +$model " <<<"$out" | tr -s ' ')" || fail "${doc#"$src"/}: no dev-set row for $gpu $model"
        while IFS= read -r cell; do
          # "3407.2 / 3399.4 (+0.2 %)" is printed "3407.2 / 3399.4 +0.2%" (a minus sign as '-').
          want="$(sed -E 's/ \(([^ ]+) %\)/ \1%/; s/−/-/' <<<"$cell")"
          grep -qF -- "$want" <<<"$line" || fail "${doc#"$src"/}: '$cell' for $gpu $model, the command prints: $line"
          checked=$((checked + 1))
        done < <(grep -oE '[0-9.]+ / [0-9.]+ \([−+-]?[0-9.]+ %\)' <<<"$row")
      done < <(grep -E '^ *\| (A100|H20|H800) \| ' "$doc")
    done
    [[ $checked -ge 9 ]] || fail "only $checked published dev-set cells found; the table format changed?"
    echo "ok: $checked published dev-set cells match";;
  *) fail "unknown case $case";;
esac
