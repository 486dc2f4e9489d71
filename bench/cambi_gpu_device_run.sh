#!/usr/bin/env bash
# The cambi CUDA device run (issue 9), from the repo root with the binaries (cambi_cuda_test,
# cuda_parity_test, vqx_run_pair, stripped) and libfmt.so.9 in .carry/gpu_cambi and the fixtures in
# .carry/fixtures.tar.xz: --profile stage tables (default and full_ref, 1080p and 4K), the c-value
# variants (tile height, cells per tile, run updates, the global-histogram kernel), wall ms/frame
# cuda vs cpu, the gpu tests (stage tests, parity, repeat), compute-sanitizer.
set -uo pipefail
root=$PWD; bin=$root/.carry/gpu_cambi; out=${OUT:-/tmp/out}; mkdir -p "$out"
export LD_LIBRARY_PATH=$bin
fx=/dev/shm/fx; mkdir -p $fx; tar -xJf .carry/fixtures.tar.xz -C $fx
export VQX_FIXTURES=$fx VQX_REQUIRE_FIXTURES=1
run=$bin/vqx_run_pair; w=/dev/shm/long
{ nvidia-smi -L; nproc; } >"$out/env.log" 2>&1
mkdir -p $w
for s in ref dis; do
  python3 bench/make_long_y4m.py $fx/band1080/$s.y4m $w/b_$s.y4m 120 &
  python3 bench/make_long_y4m.py $fx/uhd4k/$s.y4m $w/u_$s.y4m 40 &
done; wait
# 1. profile (eager, CUDA events) and the variants; graph runs for wall time
{
  echo "=== smoke n576"; timeout 60 $run --print cambi $fx/n576/ref.y4m $fx/n576/dis.y4m cambi 2>&1 | tail -3
  for cfg in cambi cambi=full_ref=true; do
    echo "=== profile band1080 120 $cfg"; timeout 60 $run --profile $w/b_ref.y4m $w/b_dis.y4m $cfg 2>&1
    echo "=== profile uhd4k 40 $cfg"; timeout 60 $run --profile $w/u_ref.y4m $w/u_dis.y4m $cfg 2>&1
  done
  for v in "VQX_CAMBI_CUDA_TILE_ROWS=64" "VQX_CAMBI_CUDA_TILE_K=128" "VQX_CAMBI_CUDA_RUNS=warp" \
           "VQX_CAMBI_CUDA_MASK=split" "VQX_CAMBI_CUDA_CV=global VQX_CAMBI_CUDA_MASK=split VQX_CAMBI_CUDA_MAPS=1"; do
    echo "=== variant $v"
    env $v timeout 60 $run --profile $w/b_ref.y4m $w/b_dis.y4m cambi 2>&1 | grep -E "cambi:|peak"
    env $v timeout 60 $run --profile $w/u_ref.y4m $w/u_dis.y4m cambi 2>&1 | grep -E "cambi:|peak"
  done
  for b in cuda cpu; do
    echo "=== wall $b band1080 120 / uhd4k 40 (graphs on cuda)"
    timeout 90 $run --backend $b --threads 16 $w/b_ref.y4m $w/b_dis.y4m cambi 2>&1 | tail -1
    timeout 90 $run --backend $b --threads 16 $w/u_ref.y4m $w/u_dis.y4m cambi 2>&1 | tail -1
  done
} >"$out/profile.log" 2>&1
grep -E "^===|cambi|device span|wall|peak|frames=" "$out/profile.log" | head -120
# 2. tests
{
  echo "=== cambi_cuda_cvalues_test"; timeout 120 $bin/cambi_cuda_cvalues_test 2>&1; echo "=== exit $?"
  echo "=== cambi_cuda_premask_test"; timeout 60 $bin/cambi_cuda_premask_test 2>&1; echo "=== exit $?"
  echo "=== cambi_cuda_test"; timeout 240 $bin/cambi_cuda_test 2>&1; echo "=== exit $?"
  echo "=== cuda_parity_test (cambi rows)"; timeout 200 $bin/cuda_parity_test --gtest_filter='*cambi*:*EveryTwinHasARow*' 2>&1; echo "=== exit $?"
} >"$out/tests.log" 2>&1
grep -E "^===|PASSED|FAILED|Failure|^cambi cuda|^parity" "$out/tests.log" | head -150
# 3. sanitizer on short inputs
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
{
  for tool in memcheck racecheck; do
    echo "=== $tool hbd720 full_ref 2 frames"
    timeout 120 $cs --tool $tool --error-exitcode 9 $run --frames 2 $fx/hbd720/ref.y4m $fx/hbd720/dis.y4m cambi=full_ref=true 2>&1 | tail -4
    echo "=== exit ${PIPESTATUS[0]}"
  done
  echo "=== memcheck odd853 pq 1 frame"
  timeout 90 $cs --tool memcheck --error-exitcode 9 $run --frames 1 $fx/odd853/ref.y4m $fx/odd853/dis.y4m cambi=eotf=pq:max_log_contrast=3 2>&1 | tail -4
  echo "=== exit ${PIPESTATUS[0]}"
} >"$out/sanitizer.log" 2>&1
cat "$out/sanitizer.log"
