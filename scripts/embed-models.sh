#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerates every embedded-model header from its weights file:
#   models/<family>.mlp     -> include/synperf/models/<family>.hpp
#   test/data/mlp/tiny.mlp  -> test/data/mlp/tiny_embedded.hpp (small chunks, so the test covers joining)
# The CTest `embedded_models_up_to_date` fails until this has been run after a weights file changed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

embed() {  # embed <input> <output> <name> [extra -D options...]
  local input="$1" output="$2" name="$3"
  shift 3
  cmake -DINPUT="$input" -DOUTPUT="$output" -DNAME="$name" "$@" -P cmake/embed_model.cmake
  echo "embed-models: $input -> $output"
}

shopt -s nullglob
for model in models/*.mlp; do
  name="$(basename "$model" .mlp)"
  embed "$model" "include/synperf/models/$name.hpp" "$name"
done
embed test/data/mlp/tiny.mlp test/data/mlp/tiny_embedded.hpp tiny -DCHUNK_SIZE=200
