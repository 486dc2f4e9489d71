#!/usr/bin/env bash
# Everything issue 6 needs from one call on the device machine (an H200): gpu tests, parity on
# every fixture, compute-sanitizer (memcheck, racecheck, synccheck), --profile, the bandwidth
# probes and the benchmark table. Binaries come prebuilt in .carry/bin (with libfmt), fixtures as
# .carry/fixtures.tar.xz; logs go to $OUT (at most 8 files).
#   usage (repo root): bash bench/gpu_device_run.sh
set -uo pipefail
root=$PWD
bin=$root/.carry/bin
out=${OUT:-/tmp/vqx-out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fx=/dev/shm/vqx-fixtures
mkdir -p "$fx"
tar -xJf .carry/fixtures.tar.xz -C "$fx"
export VQX_FIXTURES=$fx VQX_REQUIRE_FIXTURES=1
run=$bin/vqx_run_pair

{
  nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.mem --format=csv; nproc
  "$run" --h2d-bandwidth 24
  "$run" --h2d-bandwidth 256
} >"$out/env.log" 2>&1

# 1. gpu tests (and the parallel reader's unit test); SKIP_TESTS=1 leaves them out
[ "${SKIP_TESTS:-0}" = 1 ] || {
  for t in cuda_engine_test cuda_parity_test y4m_parallel_test; do
    echo "=== $t"; "$bin/$t" 2>&1; echo "=== $t exit $?"
  done
} >"$out/tests.log" 2>&1
grep -E "^=== |PASSED|FAILED|SKIPPED \]" "$out/tests.log" | grep -v "^\[  SKIPPED \] .*\." | tail -20

# 2. compute-sanitizer on short runs
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
{
  for tool in memcheck racecheck synccheck; do
    extra=""; [ $tool = memcheck ] && extra="--leak-check full"
    for pair in uhd4k hbd720 odd853; do
      echo "=== $tool $pair"
      "$cs" --tool $tool $extra --error-exitcode 9 "$run" --frames 4 "$fx/$pair/ref.y4m" "$fx/$pair/dis.y4m" psnr=enable_mse=true 2>&1 | tail -4
      echo "=== exit ${PIPESTATUS[0]}"
    done
  done
  # The allocation-failure test provokes a cudaMalloc error on purpose: memcheck lists that API
  # error, so it runs on its own and the rest must be clean.
  echo "=== memcheck cuda_engine_test without *AllocationFailure*"
  "$cs" --tool memcheck --error-exitcode 9 "$bin/cuda_engine_test" --gtest_filter=-*1920*:*AllocationFailure* 2>&1 | grep -E "^=========|PASSED|FAILED" | head -20
  echo "=== exit ${PIPESTATUS[0]}"
  echo "=== memcheck cuda_engine_test *AllocationFailure* (errors expected: the provoked failure)"
  "$cs" --tool memcheck --error-exitcode 9 "$bin/cuda_engine_test" --gtest_filter=*AllocationFailure* 2>&1 | grep -E "^=========|PASSED|FAILED" | head -30
  echo "=== exit ${PIPESTATUS[0]}"
} >"$out/sanitizer.log" 2>&1
grep -E "^=== |ERROR SUMMARY|HAZARD|RACECHECK SUMMARY" "$out/sanitizer.log" | head -40

# 3. benchmark (also makes the long clips): as long as /dev/shm allows (~25 GB for 2000 + 500)
avail_gb=$(df --output=avail -BG /dev/shm | tail -1 | tr -dc 0-9)
echo "/dev/shm available: ${avail_gb} GB" >>"$out/env.log"
if [ "${avail_gb:-0}" -lt 32 ]; then : "${N_1080:=800}" "${N_4K:=240}"; fi
REPS=${REPS:-5} N_1080=${N_1080:-2000} N_4K=${N_4K:-500} READ_THREADS=${READ_THREADS:-8} bash "$root/bench/gpu_bench.sh" "$run" "$fx" "$out/bench.md" 2>"$out/bench.err"
cp /dev/shm/vqx-bench/times.tsv "$out/times.tsv" 2>/dev/null
cat "$out/bench.md"

# 4. profiles on the long clips
w=/dev/shm/vqx-bench
{
  n4=${N_4K:-500}; n1=${N_1080:-2000}
  for rt in 1 4 8; do
    echo "=== uhd4k $n4 frames, --read-threads $rt"
    "$run" --profile --read-threads $rt $w/uhd4k_ref_$n4.y4m $w/uhd4k_dis_$n4.y4m psnr
  done
  echo "=== band1080 $n1 frames, --read-threads 8"
  "$run" --profile --read-threads 8 $w/band1080_ref_$n1.y4m $w/band1080_dis_$n1.y4m psnr
  echo "=== uhd4k $n4 frames, --read-threads 8, graphs (no profile)"
  "$run" --read-threads 8 $w/uhd4k_ref_$n4.y4m $w/uhd4k_dis_$n4.y4m psnr
  echo "=== n576 48 frames, graphs (no profile)"
  "$run" "$fx/n576/ref.y4m" "$fx/n576/dis.y4m" psnr
} >"$out/profile.log" 2>&1
cat "$out/profile.log" | tail -60
cat "$out/env.log"
