#!/usr/bin/env bash
# Everything issue 7 needs from one call on the device machine (an H200), in order of importance:
# stage-by-stage bit-identity and determinism tests, parity on every fixture, the --profile stage
# tables (tiled horizontal pass, and the plain row walk for comparison), compute-sanitizer
# (memcheck, racecheck) and the wall-clock benchmark. Prebuilt binaries (with libfmt) come in
# $BIN (default .carry/gpu_ss2), fixtures as .carry/fixtures.tar.xz; logs go to $OUT.
#   usage (repo root): bash .carry/gpu_ss2/ssimulacra2_gpu_device_run.sh
set -uo pipefail
root=$PWD
bin=${BIN:-$root/.carry/gpu_ss2}
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

{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.mem --format=csv; nproc; } >"$out/env.log" 2>&1

# 1. stage bit-identity, synthetic vectors, 100-run determinism
stamp tests
timeout 120 "$bin/ssimulacra2_cuda_test" >"$out/stages.log" 2>&1
echo "=== exit $?" >>"$out/stages.log"
grep -E "^stages|^determinism|FAILED|PASSED|Failure|differ|=== exit" "$out/stages.log" | head -60

# 2. parity on every fixture frame
stamp parity
timeout 90 "$bin/cuda_parity_test" --gtest_filter='*ssimulacra2*:*EveryTwin*' >"$out/parity.log" 2>&1
echo "=== exit $?" >>"$out/parity.log"
grep -E "^parity|FAILED|PASSED|=== exit" "$out/parity.log" | head -40

# 3. --profile on longer clips (fixture frames repeated): tiled horizontal pass, then the plain
# row walk (VQX_SS2_HBLUR=rowwalk)
stamp profile
w=/dev/shm/vqx-bench
mkdir -p "$w"
declare -A long=([band1080]=${N_1080:-120} [uhd4k]=${N_4K:-40})
for pair in band1080 uhd4k; do
  for n in 2 "${long[$pair]}"; do
    for side in ref dis; do
      python3 "$root/bench/make_long_y4m.py" "$fx/$pair/$side.y4m" "$w/${pair}_${side}_$n.y4m" "$n"
    done
  done
done
{
  for pair in band1080 uhd4k; do
    n=${long[$pair]}
    echo "=== $pair $n frames, tiled"
    timeout 30 "$run" --profile "$w/${pair}_ref_$n.y4m" "$w/${pair}_dis_$n.y4m" ssimulacra2
    echo "=== $pair $n frames, rowwalk"
    VQX_SS2_HBLUR=rowwalk timeout 30 "$run" --profile "$w/${pair}_ref_$n.y4m" "$w/${pair}_dis_$n.y4m" ssimulacra2
  done
} >"$out/profile.log" 2>&1
cat "$out/profile.log"

# 4. compute-sanitizer
stamp sanitizer
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
{
  for spec in "memcheck n576 2" "memcheck odd853 2" "racecheck odd853 1" "racecheck hbd720 1"; do
    set -- $spec
    echo "=== $1 $2 ($3 frames)"
    timeout 45 "$cs" --tool "$1" --error-exitcode 9 "$run" --frames "$3" "$fx/$2/ref.y4m" "$fx/$2/dis.y4m" ssimulacra2 2>&1 | tail -4
    echo "=== exit ${PIPESTATUS[0]}"
  done
  echo "=== memcheck ssimulacra2_cuda_test (debug path, edge sizes, RGB)"
  timeout 60 "$cs" --tool memcheck --error-exitcode 9 "$bin/ssimulacra2_cuda_test" --gtest_filter='*EdgeSizes*:*Tiny*' 2>&1 | grep -E "^=========|PASSED|FAILED" | tail -5
  echo "=== exit ${PIPESTATUS[0]}"
} >"$out/sanitizer.log" 2>&1
grep -E "^=== |ERROR SUMMARY|RACECHECK SUMMARY|HAZARD" "$out/sanitizer.log" | head -30

# 5. wall ms/frame, cpu (16 threads) vs cuda, (t(N) - t(2)) / (N - 2)
stamp bench
REPS=${REPS:-1} N_1080=${N_1080:-120} N_4K=${N_4K:-40} READ_THREADS=8 FEATURE=ssimulacra2 \
  timeout 100 bash "$root/bench/gpu_bench.sh" "$run" "$fx" "$out/bench.md" 2>"$out/bench.err"
cp "$w/times.tsv" "$out/" 2>/dev/null
cat "$out/bench.md"
stamp done
