#!/usr/bin/env bash
# Issue 7, speed pass: one device run (<= 3 min) with everything the pass must show, in order of
# importance: stage bit-identity + schedules + 100-run determinism, parity on every fixture, the
# device ms/frame (graph replay) at 1080p and 4K per variant, --profile stage tables (default and
# sequential schedule), compute-sanitizer memcheck + racecheck on one n576 frame, and an Nsight
# Compute summary of the 4K kernels when ncu exists. Binaries in $BIN (default
# .carry/gpu_ss2b), fixtures .carry/fixtures.tar.xz, logs in $OUT.
set -uo pipefail
root=$PWD
bin=${BIN:-$root/.carry/gpu_ss2b}
out=${OUT:-/tmp/vqx-out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fx=/dev/shm/vqx-fixtures
mkdir -p "$fx"
tar -xJf .carry/fixtures.tar.xz -C "$fx"
export VQX_FIXTURES=$fx VQX_REQUIRE_FIXTURES=1
run=$bin/vqx_run_pair
t0=$(date +%s)
stamp() { echo "--- $1 at +$(($(date +%s) - t0)) s"; }
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv; } >"$out/env.log" 2>&1

stamp tests
timeout 55 "$bin/ssimulacra2_cuda_test" >"$out/stages.log" 2>&1
echo "=== exit $?" >>"$out/stages.log"
grep -E "^stages|^determinism|FAILED|PASSED|Failure|=== exit" "$out/stages.log" | cut -c1-200 | head -40

stamp parity
timeout 35 "$bin/cuda_parity_test" --gtest_filter='*ssimulacra2*:*EveryTwin*' >"$out/parity.log" 2>&1
echo "=== exit $?" >>"$out/parity.log"
grep -E "^parity|FAILED|PASSED|=== exit" "$out/parity.log" | head -30

stamp device-bench
timeout 30 "$bin/ssimulacra2_cuda_bench" >"$out/device_bench.log" 2>&1
grep -v "^\*\*\*" "$out/device_bench.log"

stamp profile
{
  for p in band1080 uhd4k; do
    r=$fx/$p/ref.y4m; d=$fx/$p/dis.y4m
    "$run" "$r" "$d" ssimulacra2 >/dev/null   # warm-up (clocks)
    echo "=== $p default schedule (graphs, wall)"
    "$run" "$r" "$d" ssimulacra2
    echo "=== $p profile, default schedule"
    "$run" --profile "$r" "$d" ssimulacra2
    echo "=== $p profile, sequential scales"
    VQX_SS2_SEQUENTIAL=1 "$run" --profile "$r" "$d" ssimulacra2
  done
} >"$out/profile.log" 2>&1
cat "$out/profile.log"

stamp sanitizer
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
{
  for tool in memcheck racecheck; do
    echo "=== $tool n576 (1 frame)"
    timeout 25 "$cs" --tool "$tool" --error-exitcode 9 "$run" --frames 1 "$fx/n576/ref.y4m" "$fx/n576/dis.y4m" ssimulacra2 2>&1 | tail -3
    echo "=== exit ${PIPESTATUS[0]}"
  done
} >"$out/sanitizer.log" 2>&1
grep -E "^=== |ERROR SUMMARY|RACECHECK SUMMARY" "$out/sanitizer.log"

stamp ncu
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -n "$ncu" ] && [ $(($(date +%s) - t0)) -lt 140 ]; then
  VQX_SS2_SEQUENTIAL=1 timeout 25 "$ncu" -k regex:'blur|xyb' -c 4 --section SpeedOfLight \
    --section Occupancy --section LaunchStats --section WarpStateStats \
    "$run" --frames 1 "$fx/uhd4k/ref.y4m" "$fx/uhd4k/dis.y4m" ssimulacra2 >"$out/ncu.log" 2>&1
  grep -E "^  [a-z_]+.*\(|Duration|Memory Throughput|Compute \(SM\)|Achieved Occupancy|Theoretical Occupancy|Stall|Registers|Waves" "$out/ncu.log" | head -60
else
  echo "ncu: ${ncu:-absent} (or no time left)"
fi
stamp done
