#!/usr/bin/env bash
# Runs vqx's reliability checks and writes their table (docs/reliability.md). The steps:
#  asan     the CPU test suite under AddressSanitizer + UndefinedBehaviorSanitizer (clang,
#           RelWithDebInfo, CPU-only, build-asan/, which also holds the fuzz targets), every test
#           but the long-run ones;
#  fuzz     every libFuzzer target for a bounded time from its seed corpus (scripts/fuzz.sh);
#  tsan     the engine, thread-pool, reading-thread and load tests under ThreadSanitizer
#           (build-tsan/);
#  release  the long-run, load and output-fault tests of the release build (default build/);
#  gpu      the GPU's failure modes and long run in the release build, on a CUDA device: device
#           memory exhausted, two processes on one device, an invalid --gpu index, a kernel fault
#           mid-run, 100,000 frames with device memory sampled.
#   usage: scripts/reliability.sh [--ci] [--steps asan,fuzz,tsan,release,gpu] [--release-build DIR]
#                                 [--fuzz-seconds N] [--table FILE]
# --ci runs asan, fuzz and tsan (scripts/test.sh runs the release build's tests) and writes no
# table unless --table is given. Each step's wall time is measured; the script stops at the first
# failure. The table keeps one block per step: a run rewrites the blocks of the steps it ran and
# keeps the others (the gpu block comes from a machine with a CUDA device).
set -euo pipefail
export LC_ALL=C
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

ci=0
steps=asan,fuzz,tsan,release,gpu
release=build
fuzz_seconds=60
table=docs/reliability.md
table_given=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --ci) ci=1; steps=asan,fuzz,tsan ;;
    --steps) steps=$2; shift ;;
    --release-build) release=$2; shift ;;
    --fuzz-seconds) fuzz_seconds=$2; shift ;;
    --table) table=$2; table_given=1; shift ;;
    *) echo "reliability.sh: unknown argument $1" >&2; exit 1 ;;
  esac
  shift
done
[[ $ci == 1 && $table_given == 0 ]] && table=""

export VQX_FIXTURES=${VQX_FIXTURES:-/var/cache/vqx-fixtures}
export VQX_REQUIRE_FIXTURES=1
jobs=$(nproc)
cc=${VQX_SANITIZER_CC:-clang-16}
cxx=${VQX_SANITIZER_CXX:-clang++-16}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# Reports name source lines when a symbolizer is found (any LLVM version reads clang 16's tables).
symbolizer=$(command -v llvm-symbolizer-16 || command -v llvm-symbolizer || true)
symbolizer=${symbolizer:+:external_symbolizer_path=$symbolizer}
# Reports stop the test; leaks count as failures; the fuzzers keep their own settings.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=1$symbolizer}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1$symbolizer}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1$symbolizer}

run_step() { [[ ,$steps, == *,$1,* ]]; }
log=$(mktemp -d)
echo "reliability: logs in $log" >&2
rows=()
step_rows=()  # "STEP<TAB>ROW" for the table
add_row() { step_rows+=("$1"$'\t'"$2"); rows+=("$2"); }
step_start=0
begin() { step_start=$(date +%s); echo "reliability: $1" >&2; }
elapsed() { echo $(( $(date +%s) - step_start )); }
# Runs a command with its output in LOG; a failure shows the log's end and stops the script, so a
# failed configure or build is as visible as a failed test.
logged() {  # LOG COMMAND...
  local out=$1
  shift
  "$@" >"$out" 2>&1 || { tail -60 "$out" >&2; echo "reliability: failed: $* (log: $out)" >&2; exit 1; }
}
# "N tests, M failed" from a ctest log; a run that found no tests fails.
ctest_summary() {
  local summary
  # ctest 3.25 writes "100% tests passed, 0 tests failed out of N", later versions "100% tests passed out of N".
  summary=$(sed -n -e 's/^[0-9]*% tests passed, \([0-9]*\) tests failed out of \([0-9]*\)$/\2 tests, \1 failed/p' \
    -e 's/^100% tests passed out of \([0-9]*\)$/\1 tests, 0 failed/p' "$1" | tail -1)
  [[ -n $summary && $summary != "0 tests,"* ]] || { echo "reliability: no tests ran ($1)" >&2; exit 1; }
  echo "$summary"
}

# Line tables are all a sanitizer report needs to name the source line; full debug information
# only makes the build slower.
configure() {  # DIR SANITIZE EXTRA...
  local dir=$1 sanitize=$2
  shift 2
  logged "$log/configure-$(basename "$dir").log" env CC="$cc" CXX="$cxx" \
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" \
    "${launcher[@]}" -DVQX_CUDA=OFF -DVQX_BUILD_BENCH=OFF -DVQX_SANITIZE="$sanitize" \
    -DVQX_SHARED_DIR="${VQX_SHARED_DIR:-$root/../shared}" "$@"
}

# 1. AddressSanitizer + UndefinedBehaviorSanitizer: the whole CPU suite but long/.
if run_step asan; then
  begin "ASan+UBSan build"
  configure build-asan address,undefined -DVQX_BUILD_FUZZ=ON
  logged "$log/asan-build.log" cmake --build build-asan -j"$jobs"
  asan_build=$(elapsed)
  begin "ASan+UBSan tests"
  (cd build-asan && ctest -j"$jobs" -LE long --output-on-failure --timeout 1800) >"$log/asan-test.log" 2>&1 ||
    { tail -60 "$log/asan-test.log" >&2; exit 1; }
  asan_result=$(ctest_summary "$log/asan-test.log")
  add_row asan "| AddressSanitizer + UndefinedBehaviorSanitizer (clang 16, -fno-sanitize-recover, leaks checked) | the CPU test suite, every label but \`long\` | $asan_result | build $asan_build s, tests $(elapsed) s |"
fi

# 2. Fuzzing, one target per core at a time, in the ASan+UBSan build (no rebuild after step 1).
if run_step fuzz; then
  begin "fuzzing"
  configure build-asan address,undefined -DVQX_BUILD_FUZZ=ON
  fuzz_targets=$(cd tests/fuzz && ls ./*_fuzz.cpp | sed 's|^\./||; s|\.cpp$||')
  # shellcheck disable=SC2086
  logged "$log/fuzz-build.log" cmake --build build-asan -j"$jobs" --target $fuzz_targets
  bash scripts/fuzz.sh build-asan "$fuzz_seconds" "$jobs" "$log/fuzz" >"$log/fuzz.log" ||
    { cat "$log/fuzz.log" >&2; exit 1; }
  fuzz_wall=$(elapsed)
  while read -r _ name secs _ execs _ inputs _ status; do
    add_row fuzz "| libFuzzer + ASan + UBSan: \`$name\` | $secs s from tests/fuzz/corpus/$name/ | $execs runs, corpus $inputs inputs, no crash | |"
  done < <(sort "$log/fuzz.log")
  add_row fuzz "| | all fuzz targets, $jobs at a time (with their build) | | $fuzz_wall s |"
fi

# 3. ThreadSanitizer: the thread pool, the engine, the parallel reader, the reading threads and
# the load tests.
tsan_targets=(thread_pool_test engine_test y4m_parallel_test read_ahead_test many_instances_test)
tsan_tests='^(ThreadPool|Engine|Y4mParallel|ReadAhead|ManyInstances|ThreadsFarAboveTheCores)\.'
if run_step tsan; then
  begin "TSan build"
  configure build-tsan thread
  logged "$log/tsan-build.log" cmake --build build-tsan -j"$jobs" --target "${tsan_targets[@]}"
  tsan_build=$(elapsed)
  begin "TSan tests"
  (cd build-tsan && ctest -j"$jobs" -R "$tsan_tests" --output-on-failure --timeout 1800) >"$log/tsan-test.log" 2>&1 ||
    { tail -60 "$log/tsan-test.log" >&2; exit 1; }
  tsan_result=$(ctest_summary "$log/tsan-test.log")
  add_row tsan "| ThreadSanitizer (clang 16) | ${tsan_targets[*]} | $tsan_result | build $tsan_build s, tests $(elapsed) s |"
fi

# 4. The release build's long-run, load and fault tests (CI runs them in scripts/test.sh).
if run_step release; then
  begin "long-run, load and fault tests ($release)"
  logged "$log/release-build.log" cmake --build "$release" -j"$jobs" --target vqx_cli \
    long_run_test long_run_report_test many_instances_test output_file_test cli_output_faults_test
  (cd "$release" && ctest -j"$jobs" -L 'long|load' -V) >"$log/long.log" 2>&1 ||
    { tail -60 "$log/long.log" >&2; exit 1; }
  rss=$(grep -o '\[ load \] cpu.*' "$log/long.log" | sed 's/\[ load \] //' | head -1)
  long_result=$(ctest_summary "$log/long.log")
  add_row release "| Long run and load, CPU | 100,000 frames of 64x64 (psnr, vif, adm, motion) whose values repeat with the input; every metric at once (23 instances) at 2, 16 x cores and 256 threads, each column equal to the instance alone; frame buffers bounded by memory; refused threads | $long_result; $rss | $(elapsed) s |"
  begin "output fault tests ($release)"
  (cd "$release" && ctest -j"$jobs" -R '^(CliOutputFaults|OutputFile)\.' --output-on-failure) >"$log/faults.log" 2>&1 ||
    { tail -60 "$log/faults.log" >&2; exit 1; }
  skipped=$(grep -c 'Skipped' "$log/faults.log" || true)
  faults_result=$(ctest_summary "$log/faults.log")
  add_row release "| Output faults | full tmpfs, file-size limit, /dev/full, FIFO whose reader leaves, missing folder: error, exit 3, no partial file | $faults_result, $skipped skipped | $(elapsed) s |"
fi

# 5. The GPU's failure modes and long run (the release build with CUDA, on a device).
gpu_tests='^(CudaMemoryFaults|CudaProcesses|CudaKernelFault|LongRunCuda)\.'
if run_step gpu; then
  begin "GPU failure modes ($release)"
  grep -q '^VQX_CUDA:BOOL=ON' "$release/CMakeCache.txt" 2>/dev/null ||
    { echo "reliability: gpu: $release is not a CUDA build" >&2; exit 1; }
  (cd "$release" && ctest -L gpu -R "$gpu_tests" -V --timeout 900) >"$log/gpu.log" 2>&1 ||
    { tail -60 "$log/gpu.log" >&2; exit 1; }
  ! grep -q 'Skipped' "$log/gpu.log" || { echo "reliability: gpu: tests skipped (no CUDA device?)" >&2; exit 1; }
  device_memory=$(grep -o '\[ load \] cuda.*' "$log/gpu.log" | sed 's/\[ load \] //' | head -1)
  gpu_result=$(ctest_summary "$log/gpu.log")
  device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
  add_row gpu "| GPU failure modes (${device:-CUDA device}) | device memory filled before a metric's set-up: the error names the metric and the bytes it needed; too little memory for the frames in flight asked for: runs fewer and says so; two vqx processes on one device: the scores of one alone; --gpu beyond the devices; a kernel trap mid-run: runtime failure, no partial file; 100,000 frames through the CUDA path | $gpu_result; $device_memory | $(elapsed) s |"
fi

if [[ -n $table ]]; then
  # One block per step; the blocks of steps not run this time are kept (scripts/reliability_table.py).
  stamp="$(date +%Y-%m-%d), $(nproc) cores, $(uname -m), $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
  printf '%s\n' "${step_rows[@]}" | python3 "$root/scripts/reliability_table.py" "$table" "$steps" "$stamp"
  echo "reliability: table written to $table" >&2
fi
printf '%s\n' "${rows[@]}"
