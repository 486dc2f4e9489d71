#!/usr/bin/env bash
# One device run for the float_ms_ssim / float_ssim CUDA twins: the stage and metric tests (every
# intermediate bit-identical, the schedule, the fixture contract, repeats), the --profile stage
# tables at 1080p and 4K, the stage bench, the cuda_parity_test rows, compute-sanitizer memcheck +
# racecheck on short inputs. Each step has its own timeout and its log is written as it goes.
# Binaries (stripped), libfmt, make_long_y4m.py and this script are carried in one folder
# (.carry/<branch>), fixtures as .carry/fixtures.tar.xz; logs go to $OUT.
#   usage (repo root on the device machine): bash .carry/<branch>/float_ms_ssim_gpu_run.sh
set -uo pipefail
root=$PWD
bin=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/vqx-out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fx=/dev/shm/fx
mkdir -p "$fx"
tar -xJf .carry/fixtures.tar.xz -C "$fx"
[ -d "$fx/n576" ] || fx=$(dirname "$(find /dev/shm/fx -name ref.y4m -path '*n576*' | head -1)")/..
export VQX_FIXTURES=$fx VQX_REQUIRE_FIXTURES=1
run=$bin/vqx_run_pair
t0=$(date +%s)
stamp() { echo "--- $(( $(date +%s) - t0 )) s: $*"; }

{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv; nproc; } >"$out/env.log" 2>&1

# 1. stage tests, contract, repeat
{
  stamp tests
  for t in ssim_cuda_stages_test ssim_cuda_windows_test float_ms_ssim_cuda_test; do
    timeout ${T_TESTS:-60} "$bin/$t" 2>&1; echo "=== $t exit $?"
  done
  stamp done
} >"$out/tests.log" 2>&1
grep -E "^=== |^contract|^straddle|^repeat|PASSED|FAILED|^--- " "$out/tests.log" | head -60

# 2. --profile stage tables (eager launches, CUDA events) on long clips
w=/dev/shm/long
mkdir -p "$w"
n1=${N_1080:-200}; n4=${N_4K:-60}
for s in ref dis; do
  python3 "$bin/make_long_y4m.py" "$fx/band1080/$s.y4m" "$w/b_${s}.y4m" "$n1"
  python3 "$bin/make_long_y4m.py" "$fx/uhd4k/$s.y4m" "$w/u_${s}.y4m" "$n4"
done
{
  for feat in float_ms_ssim float_ssim; do
    echo "=== profile band1080 $n1 frames $feat"
    timeout 20 "$run" --profile --read-threads 8 "$w/b_ref.y4m" "$w/b_dis.y4m" $feat 2>&1
    echo "=== profile uhd4k $n4 frames $feat"
    timeout 20 "$run" --profile --read-threads 8 "$w/u_ref.y4m" "$w/u_dis.y4m" $feat 2>&1
  done
  for p in b u; do
    echo "wall $p float_ms_ssim $(timeout 20 "$run" --read-threads 8 "$w/${p}_ref.y4m" "$w/${p}_dis.y4m" float_ms_ssim | grep -o 'ms_per_frame=[0-9.]*')"
  done
} >"$out/profile.log" 2>&1
rm -rf "$w"
stamp profile done
timeout 60 "$bin/float_ms_ssim_cuda_bench" >"$out/stages_bench.log" 2>&1
grep -E "BM_|error" "$out/stages_bench.log"
grep -E "^=== |float|device span|wall|upload" "$out/profile.log"

# 3. parity rows
{
  timeout ${T_PARITY:-30} "$bin/cuda_parity_test" --gtest_filter='*EveryTwinHasARow*:*float_ms_ssim*:*float_ssim*' 2>&1
  echo "=== cuda_parity_test exit $?"
} >"$out/parity.log" 2>&1
grep -E "^=== |PASSED|FAILED|^parity .*float" "$out/parity.log" | head -40
stamp parity done

# 4. compute-sanitizer on short inputs
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
{
  echo "=== memcheck odd853"
  timeout 25 "$cs" --tool memcheck --leak-check full --error-exitcode 9 "$run" --frames 2 \
    "$fx/odd853/ref.y4m" "$fx/odd853/dis.y4m" float_ms_ssim=enable_lcs=true float_ssim=enable_lcs=true 2>&1 | tail -3
  echo "=== exit ${PIPESTATUS[0]}"
  echo "=== racecheck odd853"
  timeout 25 "$cs" --tool racecheck --error-exitcode 9 "$run" --frames 1 \
    "$fx/odd853/ref.y4m" "$fx/odd853/dis.y4m" float_ms_ssim float_ssim=scale=1 2>&1 | tail -3
  echo "=== exit ${PIPESTATUS[0]}"
  echo "=== memcheck stage tests (small sizes)"
  timeout 25 "$cs" --tool memcheck --error-exitcode 9 "$bin/ssim_cuda_stages_test" \
    --gtest_filter='*SignedFlat*:*BoxDecimation*:*w11h11*:*w43h75*:*w77h91*' 2>&1 | grep -E "^=========|PASSED|FAILED" | head -20
  echo "=== exit ${PIPESTATUS[0]}"
} >"$out/sanitizer.log" 2>&1
grep -E "^=== |ERROR SUMMARY|RACECHECK SUMMARY|HAZARD" "$out/sanitizer.log" | head -40
stamp all done
