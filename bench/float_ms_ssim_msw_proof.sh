#!/usr/bin/env bash
# (Session 16: a record of its round. Most window / decimation variants it names (VQX_SSIM_WIN
# other than 38 and 44, VQX_SSIM_DEC other than 26, 28 and 32, VQX_SSIM_PYR, the removed test
# names) were removed, see docs/float_ms_ssim.md "Session 16: pruning"; an unknown knob value
# now selects the default. Not runnable as is.)
# msw device round: proof of the compiled-in window default (session 14: window 33) with no
# knobs set. Env from the lead: FX, SHARED, D. The whole float_ms_ssim_cuda_test but the
# session-13 sweep, the parity rows, --profile (1080p x120, 4K x40; before = VQX_SSIM_WIN=16),
# cuda_throughput_bench K = 1/2/4 with peak device memory (before: VQX_SSIM_WIN=16), the graph
# replay of the defaults against session 13's, ncu of the window kernel at 4K.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
b=/dev/shm/msw
mkdir -p $b && tar -xJf "$here/bins.tar.xz" -C $b
export LD_LIBRARY_PATH=$b${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} VQX_FIXTURES=$FX VQX_REQUIRE_FIXTURES=1
unset VQX_SSIM_WIN VQX_SSIM_DEC VQX_SSIM_RED VQX_SSIM_FORK
log=$D/log.txt
t0=$(date +%s)
st() { echo "--- $(( $(date +%s) - t0 )) s: $*" | tee -a $log; }
left() { echo $(( 77 - ($(date +%s) - t0) )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 | tee -a $log

st "float_ms_ssim_cuda_test (all but the session-13 variant sweep), compiled-in defaults"
timeout 24 $b/float_ms_ssim_cuda_test --gtest_filter='-SsimCudaStages.EverySpeedVariantBitIdentical' >$b/t.log 2>&1
echo "=== float_ms_ssim_cuda_test exit $?" | tee -a $log
grep -E "^contract|^straddle|^division|^\[  (PASSED|FAILED) |^\[  FAILED|tests ran" $b/t.log | head -24 | tee -a $log
grep -cE "all identical to run 0: yes" $b/t.log | sed 's/^/repeat lines identical: /' | tee -a $log
grep -E "mismatch|Failure|identical to run 0: no" $b/t.log | head -5 | tee -a $log

st "parity rows, compiled-in defaults"
timeout 14 $b/cuda_parity_test --gtest_filter='*EveryTwinHasARow*:*float_ms_ssim*:*float_ssim*' >$b/p.log 2>&1
echo "=== cuda_parity_test exit $?" | tee -a $log
grep -E "^parity" $b/p.log | grep -v "_scale" | awk '{print $2, $3, $4, $5, $6, $7, $8, $9, $10}' | head -30 >>$log
grep -E "^parity" $b/p.log | grep -vc "max |diff| 0$" | sed 's/^/parity rows with a nonzero diff: /' | tee -a $log
grep -E "PASSED|FAILED" $b/p.log | head -3 | tee -a $log

st "--profile (eager, CUDA events): defaults, then VQX_SSIM_WIN=16 (before)"
w=/dev/shm/long; mkdir -p $w
for s in ref dis; do
  python3 $b/make_long_y4m.py $FX/band1080/$s.y4m $w/b_$s.y4m 120
  python3 $b/make_long_y4m.py $FX/uhd4k/$s.y4m $w/u_$s.y4m 40
done
for win in default 16; do
  for p in b u; do
    if [ $win = default ]; then e=""; else e="VQX_SSIM_WIN=$win"; fi
    env $e timeout 8 $b/vqx_run_pair --backend cuda --profile --read-threads 8 $w/${p}_ref.y4m $w/${p}_dis.y4m \
      float_ms_ssim 2>&1 | grep -vE "^\s*$" | sed "s/^/w$win $p| /" | tee -a $log
  done
done
for p in b u; do
  timeout 8 $b/vqx_run_pair --backend cuda --profile --read-threads 8 $w/${p}_ref.y4m $w/${p}_dis.y4m float_ssim 2>&1 \
    | grep -E "float_ssim|frames" | sed "s/^/float_ssim $p| /" | tee -a $log
done
rm -rf $w

st "cuda_throughput_bench (device ms/frame with K frames in flight, peak MiB): defaults, then w16"
for win in default 16; do
  [ $(left) -lt 10 ] && { echo "skip throughput $win (time)" | tee -a $log; continue; }
  if [ $win = default ]; then e=""; else e="VQX_SSIM_WIN=$win"; fi
  env $e timeout 12 $b/cuda_throughput_bench --benchmark_filter='BM_CudaThroughput/(1080p|4k)_float_ms_ssim_k' \
    --benchmark_counters_tabular=true >$b/tp.txt 2>&1
  grep -E "^(BM_|Benchmark)" $b/tp.txt | sed "s/^/$win| /; s/BM_CudaThroughput\///" | tee -a $log
done

st "graph replay: session-14 defaults (w33 d15 r1 fork) vs session 13's (w16)"
[ $(left) -gt 6 ] && timeout 8 $b/float_ms_ssim_cuda_bench --benchmark_filter="_w(16|33)d15r1f/" \
  --benchmark_counters_tabular=true 2>&1 | grep -E "^BM_" | sed 's/BM_MsSsimDevice\///; s/\/iterations:1\/manual_time//' | tee -a $log

st "ncu: window kernel at 4K (defaults)"
if [ $(left) -gt 10 ]; then
  timeout $(( $(left) < 12 ? $(left) : 12 )) /usr/local/cuda/bin/ncu --clock-control none -k regex:'window' -c 1 --page raw \
    --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis --section LaunchStats \
    --section InstructionStats $b/float_ms_ssim_cuda_bench --benchmark_filter="4k_w33d15r1/" >$b/ncu.log 2>&1
  echo "ncu exit $?" | tee -a $log
  grep -E "window|gpu__time_duration.sum|inst_executed.sum |issue_active.avg.pct|pipe_(alu|fma|fmaheavy|fp64|xu|shared)_cycles_active.avg.pct_of_peak_sustained_active|issue_stalled_(not_selected|wait|barrier|math_pipe_throttle|long_scoreboard|short_scoreboard|dispatch_stall|mio_throttle|no_instruction|selected)_per_issue_active|registers_per_thread |occupancy_limit_(registers|shared)|==ERROR" \
    $b/ncu.log | grep -vE " 0$" | head -40 | tee -a $log
fi
st done
