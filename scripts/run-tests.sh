#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the dependencies, builds synperf (Release) with its tests, tools and examples, and runs ctest.
# BUILD_DIR (default: build/) chooses the build directory; SYNPERF_DATA the data directory.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build_dir="${BUILD_DIR:-build}"

bash scripts/install-deps.sh --tests

data_dir="${SYNPERF_DATA:-$root/../shared/data}"
if [[ -d "$data_dir" ]]; then
  echo "run-tests: data directory: $(cd "$data_dir" && pwd)"
else
  echo "run-tests: data directory absent ($data_dir)"
fi

cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build_dir" -j"$(nproc)"
ctest --test-dir "$build_dir" --output-on-failure -j2
