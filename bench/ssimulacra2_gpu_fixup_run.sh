#!/usr/bin/env bash
# The short second device run of issue 7: tests and parity again (the scales now run on side
# streams), the device-time benchmark (graph replay after a warm-up), --profile tables taken
# after a warm-up run (the GPU idles at low clocks), sanitizer on the concurrent schedule.
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

stamp tests
timeout 90 "$bin/ssimulacra2_cuda_test" >"$out/stages.log" 2>&1
echo "=== exit $?" >>"$out/stages.log"
grep -E "^stages|^determinism|FAILED|PASSED|Failure|=== exit" "$out/stages.log" | head -40
stamp parity
timeout 90 "$bin/cuda_parity_test" --gtest_filter='*ssimulacra2*:*EveryTwin*' >"$out/parity.log" 2>&1
echo "=== exit $?" >>"$out/parity.log"
grep -E "^parity|FAILED|PASSED|=== exit" "$out/parity.log" | head -40

stamp device-bench
timeout 60 "$bin/ssimulacra2_cuda_bench" >"$out/device_bench.log" 2>&1
cat "$out/device_bench.log" | grep -v "^\*\*\*"

stamp profile
w=/dev/shm/vqx-bench
mkdir -p "$w"
for pair in band1080:120 uhd4k:40; do
  p=${pair%:*}; n=${pair#*:}
  for side in ref dis; do python3 "$root/bench/make_long_y4m.py" "$fx/$p/$side.y4m" "$w/${p}_${side}_$n.y4m" "$n"; done
done
{
  for pair in band1080:120 uhd4k:40; do
    p=${pair%:*}; n=${pair#*:}
    r=$w/${p}_ref_$n.y4m; d=$w/${p}_dis_$n.y4m
    echo "=== $p $n frames, graphs (default schedule), after a warm-up run"
    "$run" "$r" "$d" ssimulacra2 >/dev/null
    "$run" --read-threads 8 "$r" "$d" ssimulacra2
    echo "=== $p profile, default schedule"
    "$run" --profile "$r" "$d" ssimulacra2
    echo "=== $p profile, sequential scales, tiled"
    VQX_SS2_SEQUENTIAL=1 "$run" --profile "$r" "$d" ssimulacra2
    echo "=== $p profile, sequential scales, rowwalk"
    VQX_SS2_SEQUENTIAL=1 VQX_SS2_HBLUR=rowwalk "$run" --profile "$r" "$d" ssimulacra2
  done
} >"$out/profile.log" 2>&1
cat "$out/profile.log"

stamp sanitizer
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
{
  for spec in "memcheck n576 2" "memcheck odd853 1" "racecheck n576 1"; do
    set -- $spec
    echo "=== $1 $2 ($3 frames)"
    timeout 45 "$cs" --tool "$1" --error-exitcode 9 "$run" --frames "$3" "$fx/$2/ref.y4m" "$fx/$2/dis.y4m" ssimulacra2 2>&1 | tail -3
    echo "=== exit ${PIPESTATUS[0]}"
  done
} >"$out/sanitizer.log" 2>&1
grep -E "^=== |ERROR SUMMARY|RACECHECK SUMMARY" "$out/sanitizer.log"
stamp done
