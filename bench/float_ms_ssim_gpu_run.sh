#!/usr/bin/env bash
# One device run for the float_ms_ssim / float_ssim CUDA twins (issue 8): tests (stages, contract,
# repeat, parity rows), compute-sanitizer memcheck + racecheck on short inputs, --profile stage
# tables and wall ms/frame at 1080p and 4K. Binaries and this script come carried in
# .carry/gpu_msssim (with libfmt), fixtures as .carry/fixtures.tar.xz; logs go to $OUT.
#   usage (repo root on the device machine): bash .carry/gpu_msssim/float_ms_ssim_gpu_run.sh
set -uo pipefail
root=$PWD
bin=$root/.carry/gpu_msssim
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

# 1. tests
{
  stamp tests
  timeout 150 "$bin/float_ms_ssim_cuda_test" 2>&1; echo "=== float_ms_ssim_cuda_test exit $?"
  stamp parity
  timeout 90 "$bin/cuda_parity_test" --gtest_filter='*EveryTwinHasARow*:*float_ms_ssim*:*float_ssim*' 2>&1
  echo "=== cuda_parity_test exit $?"
  stamp done
} >"$out/tests.log" 2>&1
grep -E "^=== |^contract|^straddle|^repeat|PASSED|FAILED|^parity .*float" "$out/tests.log" | head -80

# 2. compute-sanitizer on short inputs
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
{
  for pair in uhd4k hbd720 odd853; do
    echo "=== memcheck $pair"
    timeout 60 "$cs" --tool memcheck --leak-check full --error-exitcode 9 "$run" --frames 2 \
      "$fx/$pair/ref.y4m" "$fx/$pair/dis.y4m" float_ms_ssim=enable_lcs=true float_ssim=enable_lcs=true 2>&1 | tail -3
    echo "=== exit ${PIPESTATUS[0]}"
  done
  for pair in odd853 hbd720; do
    echo "=== racecheck $pair"
    timeout 60 "$cs" --tool racecheck --error-exitcode 9 "$run" --frames 1 \
      "$fx/$pair/ref.y4m" "$fx/$pair/dis.y4m" float_ms_ssim float_ssim=scale=1 2>&1 | tail -3
    echo "=== exit ${PIPESTATUS[0]}"
  done
  echo "=== memcheck stage tests (small sizes)"
  timeout 60 "$cs" --tool memcheck --error-exitcode 9 "$bin/float_ms_ssim_cuda_test" \
    --gtest_filter='*SsimCudaStages*:*w11h11*:*w43h75*:*w300h200*:*w77h91*' 2>&1 | grep -E "^=========|PASSED|FAILED" | head -20
  echo "=== exit ${PIPESTATUS[0]}"
} >"$out/sanitizer.log" 2>&1
grep -E "^=== |ERROR SUMMARY|RACECHECK SUMMARY|HAZARD" "$out/sanitizer.log" | head -40
stamp sanitizer done

# 3. long clips, --profile tables (eager, CUDA events) and wall ms/frame (graphs)
w=/dev/shm/long
mkdir -p "$w"
n1=${N_1080:-200}; n4=${N_4K:-60}
for s in ref dis; do
  python3 "$bin/make_long_y4m.py" "$fx/band1080/$s.y4m" "$w/b_${s}_$n1.y4m" "$n1"
  python3 "$bin/make_long_y4m.py" "$fx/band1080/$s.y4m" "$w/b_${s}_2.y4m" 2
  python3 "$bin/make_long_y4m.py" "$fx/uhd4k/$s.y4m" "$w/u_${s}_$n4.y4m" "$n4"
  python3 "$bin/make_long_y4m.py" "$fx/uhd4k/$s.y4m" "$w/u_${s}_2.y4m" 2
done
{
  for feat in float_ms_ssim float_ssim; do
    echo "=== profile band1080 $n1 frames $feat"
    "$run" --profile --read-threads 8 "$w/b_ref_$n1.y4m" "$w/b_dis_$n1.y4m" $feat 2>&1
    echo "=== profile uhd4k $n4 frames $feat"
    "$run" --profile --read-threads 8 "$w/u_ref_$n4.y4m" "$w/u_dis_$n4.y4m" $feat 2>&1
  done
} >"$out/profile.log" 2>&1
grep -E "^=== |float|device span|wall|upload" "$out/profile.log"
stamp profile done

# Engine wall ms/frame with graphs (no --profile), 3 repetitions. (Whole-process timing by
# t(N) - t(2) drowned in start-up noise in the first device run, so the engine's own figure is used.)
{
  for rep in 1 2 3; do
    for p in b u; do
      n=$n1; [ $p = u ] && n=$n4
      for feat in float_ms_ssim float_ssim; do
        echo "$p $feat $("$run" --read-threads 8 "$w/${p}_ref_$n.y4m" "$w/${p}_dis_$n.y4m" $feat | grep -o 'ms_per_frame=[0-9.]*')"
      done
    done
  done
} | tee "$out/bench.txt"
stamp all done
