#!/usr/bin/env bash
# (Session 16: a record of its round. Most window / decimation variants it names (VQX_SSIM_WIN
# other than 38 and 44, VQX_SSIM_DEC other than 26, 28 and 32, VQX_SSIM_PYR, the removed test
# names) were removed, see docs/float_ms_ssim.md "Session 16: pruning"; an unknown knob value
# now selects the default. Not runnable as is.)
# msw device round, informational: the binaries of a trial merge of s14_msw (window 33) and
# s14_msp (pyramid, schedule) built in the msw worktree (not committed), with their compiled-in
# defaults and no knobs. Env from the lead: FX, SHARED, D. Fixture contract and the pyramid /
# spec / option tests, the parity rows, memcheck + racecheck, cuda_throughput_bench K = 1/2/4
# (before: VQX_SSIM_WIN=16, i.e. s14_msp alone), --profile.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
b=/dev/shm/msw
mkdir -p $b && tar -xJf "$here/bins.tar.xz" -C $b
export LD_LIBRARY_PATH=$b${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} VQX_FIXTURES=$FX VQX_REQUIRE_FIXTURES=1
unset VQX_SSIM_WIN VQX_SSIM_DEC VQX_SSIM_RED VQX_SSIM_FORK VQX_SSIM_PYR VQX_SSIM_RSPLIT
log=$D/log.txt
t0=$(date +%s)
st() { echo "--- $(( $(date +%s) - t0 )) s: $*" | tee -a $log; }
left() { echo $(( 77 - ($(date +%s) - t0) )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 | tee -a $log

st "merged defaults: fixture contract, pyramid sizes, spec vectors, options, size rules"
timeout 22 $b/float_ms_ssim_cuda_test --gtest_filter='*FixtureContract*:*SsimCudaPyramid*:*FloatMsSsimCuda*:*SignedFlat*:*BoxDecimation*' \
  >$b/t.log 2>&1; echo "=== float_ms_ssim_cuda_test exit $?" | tee -a $log
grep -E "^contract|^straddle|^\[  (PASSED|FAILED) |^\[  FAILED" $b/t.log | head -24 | tee -a $log
grep -cE "all identical to run 0: yes" $b/t.log | sed 's/^/repeat lines identical: /' | tee -a $log
grep -E "mismatch|Failure|identical to run 0: no" $b/t.log | head -5 | tee -a $log

st "parity rows, merged defaults"
timeout 14 $b/cuda_parity_test --gtest_filter='*EveryTwinHasARow*:*float_ms_ssim*:*float_ssim*' >$b/p.log 2>&1
echo "=== cuda_parity_test exit $?" | tee -a $log
grep -E "^parity" $b/p.log | grep -vc "max |diff| 0$" | sed 's/^/parity rows with a nonzero diff: /' | tee -a $log
grep -E "PASSED|FAILED" $b/p.log | head -3 | tee -a $log

st "throughput (device ms/frame, K frames in flight, peak MiB): merged defaults, then VQX_SSIM_WIN=16"
for win in merged 16; do
  if [ $win = merged ]; then e=""; else e="VQX_SSIM_WIN=$win"; fi
  env $e timeout 12 $b/cuda_throughput_bench --benchmark_filter='BM_CudaThroughput/(1080p|4k)_float_ms_ssim_k' \
    --benchmark_counters_tabular=true >$b/tp.txt 2>&1
  grep -E "^(BM_|Benchmark)" $b/tp.txt | sed "s/^/$win| /; s/BM_CudaThroughput\///" | tee -a $log
done

cs=/usr/local/cuda/bin/compute-sanitizer
st "sanitizers, merged defaults"
timeout 12 $cs --tool memcheck --leak-check full --error-exitcode 9 $b/vqx_run_pair --backend cuda --frames 2 \
  $FX/odd853/ref.y4m $FX/odd853/dis.y4m float_ms_ssim=enable_lcs=true float_ssim=enable_lcs=true >$b/s1.log 2>&1
echo "=== memcheck odd853 exit $?: $(grep -E 'ERROR SUMMARY|LEAK SUMMARY' $b/s1.log | tr '\n' ' ')" | tee -a $log
timeout 12 $cs --tool racecheck --error-exitcode 9 $b/vqx_run_pair --backend cuda --frames 1 \
  $FX/odd853/ref.y4m $FX/odd853/dis.y4m float_ms_ssim float_ssim=scale=1 >$b/s2.log 2>&1
echo "=== racecheck odd853 exit $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $b/s2.log | tr '\n' ' ')" | tee -a $log

st "--profile, merged defaults"
if [ $(left) -gt 12 ]; then
  w=/dev/shm/long; mkdir -p $w
  for s in ref dis; do
    python3 $b/make_long_y4m.py $FX/band1080/$s.y4m $w/b_$s.y4m 60
    python3 $b/make_long_y4m.py $FX/uhd4k/$s.y4m $w/u_$s.y4m 20
  done
  for p in b u; do
    timeout 6 $b/vqx_run_pair --backend cuda --profile --read-threads 8 $w/${p}_ref.y4m $w/${p}_dis.y4m float_ms_ssim 2>&1 \
      | grep -E "float_ms_ssim|frames|peak" | sed "s/^/$p| /" | tee -a $log
  done
  rm -rf $w
fi
st done
