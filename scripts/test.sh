#!/usr/bin/env bash
# Makes the test fixtures from the project's shared/ folder (once, into a cache outside the
# repository) and runs every test against them. GPU-labelled tests skip themselves where no CUDA
# device is present.
#   usage: scripts/test.sh [BUILD_DIR]      (after scripts/setup.sh)
# Environment: VQX_FIXTURES (default /var/cache/vqx-fixtures), VQX_SHARED_DIR (default ../shared).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
shared=${VQX_SHARED_DIR:-$root/../shared}
export VQX_FIXTURES=${VQX_FIXTURES:-/var/cache/vqx-fixtures}
export VQX_REQUIRE_FIXTURES=1

# Fixtures: made once with the project's pinned script, verified against its manifest.
if ! (cd "$VQX_FIXTURES" 2>/dev/null && grep -E '\.y4m$' "$shared/fixtures/MANIFEST.sha256" | sha256sum -c --quiet - 2>/dev/null); then
  mkdir -p "$VQX_FIXTURES"
  bash "$shared/fixtures/make-fixtures.sh" --png --verify "$VQX_FIXTURES" >/dev/null
fi
cmake --build "$build" -j"$(nproc)" >/dev/null
cd "$build"
ctest -j"$(nproc)" --output-on-failure --timeout 900
