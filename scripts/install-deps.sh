#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian 12 packages synperf needs to build, test and run its CLI; with --tests also clang, which
# the test suite uses to check that the headers build with a second compiler.
# Does nothing (quickly) when they are all installed already.
set -euo pipefail

packages=(
  g++ cmake make
  libboost-dev
  libxtensor-dev libxtensor-blas-dev libopenblas-dev
  doctest-dev libfmt-dev libcli11-dev nlohmann-json3-dev libbenchmark-dev
  git ca-certificates
)
case "${1:-}" in
  --tests) packages+=(clang) ;;
  "") ;;
  *) echo "install-deps: unknown option '$1' (known: --tests)" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  # dpkg-query prints "install ok installed" only for a fully installed package.
  if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" != "install ok installed" ]]; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [[ $(id -u) -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "install-deps: not root and no sudo; install these packages yourself: ${missing[*]}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${packages[@]}"
