#!/usr/bin/env bash
# msssim round (float_ms_ssim CUDA speed): variant timings, variant bit tests, ncu on the kernels.
# env from the lead: FX (fixtures), SHARED, D (log folder). One log file: $D/log.txt.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
b=/dev/shm/msssim
mkdir -p $b && tar -xJf "$here/bins.tar.xz" -C $b
export LD_LIBRARY_PATH=$b${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} VQX_FIXTURES=$FX VQX_REQUIRE_FIXTURES=1
log=$D/log.txt
t0=$(date +%s)
st() { echo "--- $(( $(date +%s) - t0 )) s: $*" | tee -a $log; }
ncu=/usr/local/cuda/bin/ncu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader >>$log 2>&1
WIN=${WIN:-9}; DEC=${DEC:-3}; export VQX_SSIM_RED=${RED:-1}

st "bench (per-stage eager events, graph replay)"
timeout 15 $b/float_ms_ssim_cuda_bench --benchmark_counters_tabular=true --benchmark_filter='d[012]' 2>&1 | tee -a $log | grep -E "^BM_|Device|rror"
timeout 10 $b/float_ms_ssim_cuda_bench --benchmark_counters_tabular=true --benchmark_filter='d3' 2>&1 | tee -a $log | grep -E "^BM_|Device|rror"
st "variant stage tests"
VQX_SSIM_WIN=$WIN VQX_SSIM_DEC=$DEC timeout 25 $b/float_ms_ssim_cuda_test --gtest_filter='*EverySpeedVariant*:*SignedFlat*:*w1920h1080*' >$b/t1.log 2>&1; echo "=== variant tests exit $?" | tee -a $log
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|Failure|mismatch|OK \]" $b/t1.log | head -30 | tee -a $log
st "fixture contract with WIN=$WIN DEC=$DEC RED=$VQX_SSIM_RED FORK=1"
VQX_SSIM_FORK=1 VQX_SSIM_WIN=$WIN VQX_SSIM_DEC=$DEC timeout 22 $b/float_ms_ssim_cuda_test --gtest_filter='FloatMsSsimCuda*:FloatSsimCuda*:*Fixture*:*Repeat*' >$b/t2.log 2>&1; echo "=== fixture tests exit $?" | tee -a $log
grep -E "^contract|^straddle|^repeat|^\[  (PASSED|FAILED) |^\[  FAILED|Failure" $b/t2.log | head -30 | tee -a $log
st "--profile uhd4k (6 frames) with WIN=$WIN DEC=$DEC FORK=1"
VQX_SSIM_FORK=1 VQX_SSIM_WIN=$WIN VQX_SSIM_DEC=$DEC timeout 10 $b/vqx_run_pair --backend cuda --profile --read-threads 8 $FX/uhd4k/ref.y4m $FX/uhd4k/dis.y4m float_ms_ssim 2>&1 | tail -25 | tee -a $log
m='pipe|stalled.*per_warp_active|issue_active|inst_executed.avg.per_cycle|warps_active.avg.pct|registers|achieved_occupancy|sass_thread_inst_executed_op|inst_executed.sum '
for v in "0 0" "$WIN $DEC"; do
  set -- $v
  st "ncu window+decimate w$1 d$2 (1080p frame 0)"
  timeout 15 $ncu --clock-control none -k regex:'window_kernel|decimate' -c 5 --page raw \
    --section ComputeWorkloadAnalysis --section InstructionStats --section WarpStateStats --section Occupancy \
    $b/float_ms_ssim_cuda_bench --benchmark_filter="1080p_w$1d$2/" >$b/ncu.log 2>&1; echo "ncu exit $?" >>$log
  grep -E "window_kernel|decimate|$m|==ERROR|==WARNING" $b/ncu.log | grep -vE " 0$| 0 *$" | head -400 >>$log
  grep -E "ERROR" $b/ncu.log | head -3
done
st done
