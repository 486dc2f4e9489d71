#!/usr/bin/env bash
# Installs what vqx needs (Debian packages) and builds it (CUDA too when nvcc is found). Needs
# nothing beyond the repository; scripts/test.sh makes the test fixtures from ../shared.
#   usage: scripts/setup.sh [BUILD_DIR]      (default: build)
# Environment: VQX_SKIP_APT=1 to skip apt-get.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
mkdir -p "$build" && build=$(cd "$build" && pwd)  # absolute: CMake is given paths inside it
shared=${VQX_SHARED_DIR:-$root/../shared}

if [[ ${VQX_SKIP_APT:-0} != 1 ]]; then
  sudo=""; [[ $(id -u) == 0 ]] || sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends \
    cmake ninja-build g++ clang-16 libclang-rt-16-dev xz-utils pkg-config \
    libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev libpng-dev \
    libavformat-dev libavcodec-dev libavutil-dev libswscale-dev ffmpeg python3-skimage python3-numpy \
    python3-venv python3-pip python3-dev python3-pandas \
    chromium fonts-dejavu-core >/dev/null
fi

# nvcc lives outside PATH on many machines.
for d in /usr/local/cuda/bin /usr/lib/cuda/bin; do
  [[ -x $d/nvcc ]] && [[ ":$PATH:" != *":$d:"* ]] && export PATH="$d:$PATH"
done

# The Python module's build tools come from PyPI (Debian has no nanobind), in a virtual environment
# in the build folder that sees Debian's numpy; without them (no network) the build has no module.
py=/usr/bin/python3; [[ -x $py ]] || py=python3
venv="$build/venv"
python_flags=()
if [[ -x $venv/bin/python ]] || "$py" -m venv --system-site-packages "$venv"; then
  "$venv/bin/python" -m pip install -q --disable-pip-version-check scikit-build-core nanobind pytest \
    || echo "setup: no nanobind; building without the Python module" >&2
  python_flags=(-DPython_EXECUTABLE="$venv/bin/python")
fi

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVQX_SHARED_DIR="$shared" \
  "${python_flags[@]}" >/dev/null
cmake --build "$build" -j"$(nproc)"

echo "vqx built in $build"
