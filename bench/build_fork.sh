#!/bin/sh
# Builds the lusoris/vmaf fork's CLI, the reference bench/thread_scaling.py runs for ssimulacra2
# (--fork BUILD/tools/vmaf): a CPU-only release build with its float features, as its goldens
# were made.
# usage: bench/build_fork.sh SOURCE BUILD   (SOURCE: a checkout of lusoris/vmaf at c2a3c7e0;
#        needs meson, ninja and nasm)
set -e
[ $# -eq 2 ] || { echo "usage: $0 SOURCE BUILD" >&2; exit 2; }
meson setup "$2" "$1/libvmaf" --buildtype release -Ddefault_library=static -Dprefer_static=true \
  -Denable_float=true -Denable_tests=false -Denable_docs=false -Denable_dnn=disabled \
  -Denable_metal=disabled
ninja -C "$2" tools/vmaf
