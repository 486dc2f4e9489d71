#!/usr/bin/env bash
# Issue 7, second speed pass (grouped horizontal pass): ONE device run of at most ~140 s.
# Correctness first, in parallel (stage bit-identity incl. the kernel variants, schedules,
# 100-run determinism; CLI parity on every fixture; memcheck + racecheck on one n576 frame), then
# alone on the GPU: device ms/frame per variant (graph replay) at 1080p and 4K, --profile stage
# tables, and an Nsight Compute summary of the 4K scale-0 blur kernels if time is left.
# Binaries in $BIN (default .carry/gpu_ss2c), fixtures .carry/fixtures.tar.xz, logs in $OUT.
set -uo pipefail
root=$PWD
bin=${BIN:-$root/.carry/gpu_ss2c}
out=${OUT:-/tmp/vqx-out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fx=/dev/shm/vqx-fixtures
mkdir -p "$fx"
t0=$(date +%s)
stamp() { echo "--- $1 at +$(($(date +%s) - t0)) s"; }
tar -xJf .carry/fixtures.tar.xz -C "$fx"
export VQX_FIXTURES=$fx VQX_REQUIRE_FIXTURES=1
run=$bin/vqx_run_pair
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv; } >"$out/env.log" 2>&1
stamp correctness
( timeout 60 "$bin/ssimulacra2_cuda_test" >"$out/stages.log" 2>&1; echo "=== exit $?" >>"$out/stages.log" ) &
( timeout 45 "$bin/cuda_parity_test" --gtest_filter='*ssimulacra2*:*EveryTwin*' >"$out/parity.log" 2>&1
  echo "=== exit $?" >>"$out/parity.log" ) &
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
for tool in memcheck racecheck; do
  ( echo "=== $tool n576 (1 frame)"
    timeout 45 "$cs" --tool "$tool" --error-exitcode 9 "$run" --frames 1 "$fx/n576/ref.y4m" "$fx/n576/dis.y4m" ssimulacra2 2>&1 | tail -4
    echo "=== exit ${PIPESTATUS[0]}" ) >"$out/sanitizer_$tool.log" 2>&1 &
done
wait
stamp correctness-done
grep -E "^stages|^variants|^determinism|FAILED|PASSED|Failure|=== exit|\[ *OK *\].*ms\)" "$out/stages.log" | cut -c1-220 | head -60
grep -E "^parity|FAILED|PASSED|=== exit" "$out/parity.log" | head -30
cat "$out"/sanitizer_*.log

stamp device-bench
timeout 35 "$bin/ssimulacra2_cuda_bench" >"$out/device_bench.log" 2>&1
grep -v "^\*\*\*" "$out/device_bench.log"

stamp profile
{
  for p in band1080 uhd4k; do
    r=$fx/$p/ref.y4m; d=$fx/$p/dis.y4m
    "$run" "$r" "$d" ssimulacra2 >/dev/null   # warm-up (clocks)
    echo "=== $p default (graphs, wall)"
    "$run" "$r" "$d" ssimulacra2
    echo "=== $p profile, default schedule"
    "$run" --profile "$r" "$d" ssimulacra2
    echo "=== $p profile, sequential scales"
    VQX_SS2_SEQUENTIAL=1 "$run" --profile "$r" "$d" ssimulacra2
    echo "=== $p profile, sequential scales, row-major XYB planes and poles2 (before session 15)"
    VQX_SS2_SEQUENTIAL=1 VQX_SS2_HBLUR=poles2 "$run" --profile "$r" "$d" ssimulacra2
  done
} >"$out/profile.log" 2>&1
cat "$out/profile.log"

stamp ncu
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
left=$((135 - ($(date +%s) - t0)))
if [ -n "$ncu" ] && [ "$left" -gt 15 ]; then
  VQX_SS2_SEQUENTIAL=1 timeout "$left" "$ncu" -k regex:'blur' -c 2 --section SpeedOfLight \
    --section Occupancy --section LaunchStats --section WarpStateStats \
    "$run" --frames 1 "$fx/uhd4k/ref.y4m" "$fx/uhd4k/dis.y4m" ssimulacra2 >"$out/ncu.log" 2>&1
  grep -E "^  [a-z_]+.*\(|Duration|Memory Throughput|Compute \(SM\)|Achieved Occupancy|Theoretical Occupancy|Stall|Registers|Issued|Waves" "$out/ncu.log" | head -60
else
  echo "ncu: ${ncu:-absent} (or no time left: $left s)"
fi
stamp done
