#!/usr/bin/env bash
# Runs every test against the fixtures (made by scripts/setup.sh). GPU-labelled tests skip
# themselves where no CUDA device is present.
#   usage: scripts/test.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
export VQX_FIXTURES=${VQX_FIXTURES:-/var/cache/vqx-fixtures}
export VQX_REQUIRE_FIXTURES=1
cmake --build "$build" -j"$(nproc)" >/dev/null
cd "$build"
ctest -j"$(nproc)" --output-on-failure --timeout 900
