#!/usr/bin/env bash
# msw device round, proof of a window-kernel default (session 14). Env from the lead: FX, SHARED,
# D. The candidate W (window variant) and the steps come from the file `conf` next to this script
# ("W=25 STEPS='tests parity sanitizers profile throughput bench'"); every step runs the metric
# through the env knob VQX_SSIM_WIN=$W, the same code path as the compiled-in default.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
W=16; STEPS="tests parity"; BEFORE=16
. "$here/conf"
b=/dev/shm/msw
mkdir -p $b && tar -xJf "$here/bins.tar.xz" -C $b
export LD_LIBRARY_PATH=$b${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} VQX_FIXTURES=$FX VQX_REQUIRE_FIXTURES=1
log=$D/log.txt
t0=$(date +%s)
st() { echo "--- $(( $(date +%s) - t0 )) s: $*" | tee -a $log; }
left() { echo $(( 76 - ($(date +%s) - t0) )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 | tee -a $log
echo "candidate VQX_SSIM_WIN=$W (before: $BEFORE), steps: $STEPS" | tee -a $log
has() { [[ " $STEPS " == *" $1 "* ]]; }

if has tests; then
  st "float_ms_ssim_cuda_test (all but the session-13 variant sweep) with w$W"
  VQX_SSIM_WIN=$W timeout 34 $b/float_ms_ssim_cuda_test --gtest_filter='-SsimCudaStages.EverySpeedVariantBitIdentical' \
    >$b/t.log 2>&1; echo "=== float_ms_ssim_cuda_test exit $?" | tee -a $log
  grep -E "^contract|^straddle|^repeat|^division|^\[  (PASSED|FAILED) |^\[  FAILED|tests ran" $b/t.log | head -40 | tee -a $log
  grep -E "mismatch|Failure" $b/t.log | head -5 | tee -a $log
fi
if has parity; then
  st "parity rows with w$W"
  VQX_SSIM_WIN=$W timeout 16 $b/cuda_parity_test --gtest_filter='*EveryTwinHasARow*:*float_ms_ssim*:*float_ssim*' \
    >$b/p.log 2>&1; echo "=== cuda_parity_test exit $?" | tee -a $log
  grep -E "^parity" $b/p.log | grep -v "_scale" | head -24 | tee -a $log
  grep -E "PASSED|FAILED" $b/p.log | head -4 | tee -a $log
fi
if has sanitizers; then
  st "compute-sanitizer with w$W"
  cs=/usr/local/cuda/bin/compute-sanitizer
  VQX_SSIM_WIN=$W timeout 14 $cs --tool memcheck --leak-check full --error-exitcode 9 $b/vqx_run_pair --backend cuda \
    --frames 2 $FX/odd853/ref.y4m $FX/odd853/dis.y4m float_ms_ssim=enable_lcs=true float_ssim=enable_lcs=true >$b/s1.log 2>&1
  echo "=== memcheck odd853 exit $?: $(grep -E 'ERROR SUMMARY|LEAK SUMMARY' $b/s1.log | tr '\n' ' ')" | tee -a $log
  VQX_SSIM_WIN=$W timeout 14 $cs --tool racecheck --error-exitcode 9 $b/vqx_run_pair --backend cuda --frames 1 \
    $FX/odd853/ref.y4m $FX/odd853/dis.y4m float_ms_ssim float_ssim=scale=1 >$b/s2.log 2>&1
  echo "=== racecheck odd853 exit $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $b/s2.log | tr '\n' ' ')" | tee -a $log
fi
if has profile; then
  st "--profile (eager), w$W then w$BEFORE"
  w=/dev/shm/long; mkdir -p $w
  for s in ref dis; do
    python3 $b/make_long_y4m.py $FX/band1080/$s.y4m $w/b_$s.y4m 60
    python3 $b/make_long_y4m.py $FX/uhd4k/$s.y4m $w/u_$s.y4m 20
  done
  for win in $W $BEFORE; do
    for p in b u; do
      VQX_SSIM_WIN=$win timeout 8 $b/vqx_run_pair --backend cuda --profile --read-threads 8 $w/${p}_ref.y4m \
        $w/${p}_dis.y4m float_ms_ssim 2>&1 | grep -vE "^\s*$" | sed "s/^/w$win $p: /" | grep -E "float_ms_ssim|frames|peak" | tee -a $log
    done
  done
  rm -rf $w
fi
if has throughput; then
  st "cuda_throughput_bench (K = 1/2/4, ms/frame, peak MiB), w$W then w$BEFORE"
  for win in $W $BEFORE; do
    [ $(left) -lt 8 ] && { echo "skip throughput w$win (time)" | tee -a $log; continue; }
    VQX_SSIM_WIN=$win timeout 10 $b/cuda_throughput_bench --benchmark_filter='BM_CudaThroughput/(1080p|4k)_float_ms_ssim_k' \
      --benchmark_counters_tabular=true >$b/tp.txt 2>&1
    grep -E '^(BM_|Benchmark)' $b/tp.txt | sed "s/^/w$win /; s/BM_CudaThroughput\///" | tee -a $log
  done
fi
if has bench; then
  st "graph replay, w$W vs w$BEFORE (float_ms_ssim_cuda_bench, fork rows)"
  [ $(left) -gt 6 ] && timeout 8 $b/float_ms_ssim_cuda_bench --benchmark_filter="_w($W|$BEFORE)d15r1f?/" \
    --benchmark_counters_tabular=true 2>&1 | grep -E "^BM_" | sed 's/BM_MsSsimDevice\///; s/\/iterations:1\/manual_time//' | tee -a $log
fi
st done
