#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the dependencies, builds the synperf CLI and predicts a 4096^3 bf16 GEMM on three GPUs.
# Needs no data directory.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build_dir="${BUILD_DIR:-build}"

bash scripts/install-deps.sh

cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build_dir" -j"$(nproc)" --target synperf_cli

# show(<command>...): prints the command, then runs it.
show() { echo "\$ $*"; "$@"; }

synperf="$build_dir/tools/synperf"
show "$synperf" gpus
show "$synperf" predict gemm --gpu h100_sxm,a100_sxm,rtx_pro_6000_server --m 4096 --n 4096 --k 4096
