#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the dependencies, builds synperf (Release) with its tests, tools and examples, runs ctest, then the unit
# tests under AddressSanitizer and UndefinedBehaviorSanitizer.
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

# The unit tests once more under AddressSanitizer and UndefinedBehaviorSanitizer (the library's code: the CLI and
# examples stay out, which keeps the run within the CI budget; about 20 minutes on two cores). Every report stops the
# run, except ASan's alloc-dealloc mismatch, which libstdc++'s temporary buffer (std::stable_sort) trips by itself.
# SYNPERF_SKIP_SANITIZERS=1 leaves this stage out.
if [[ "${SYNPERF_SKIP_SANITIZERS:-0}" != 1 ]]; then
  cmake -S . -B "$build_dir-sanitize" -DCMAKE_BUILD_TYPE= -DCMAKE_CXX_FLAGS="-O1 -g" -DSYNPERF_SANITIZERS=address,undefined \
    -DSYNPERF_BUILD_TOOLS=OFF -DSYNPERF_BUILD_EXAMPLES=OFF
  cmake --build "$build_dir-sanitize" -j"$(nproc)" --target synperf_tests
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1:alloc_dealloc_mismatch=0 \
    "$build_dir-sanitize/test/synperf_tests"
fi
