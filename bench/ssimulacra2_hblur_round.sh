#!/usr/bin/env bash
# (Session 16: a record of its round; the warp and poles3/poles4/groups/tiled kernels and their
# knobs were removed, see docs/ssimulacra2.md "Session 16: pruning". Not runnable as is.)
# ss2h round 6 (session 14, final, branch merged with main incl. ss2v's strips): proof of the
# default (poles2 + the fast XYB kernel, full-frame schedule; the strips' XYB now also by the fast
# kernel) and of the warp horizontal pass v5 (VQX_SS2_HBLUR=warpa) beside it. <= 80 s.
set -u
T0=$(date +%s); el() { echo "[t=$(( $(date +%s) - T0 ))s]"; }
left() { echo $(( 77 - ($(date +%s) - T0) )); }
b=/dev/shm/ss2h; mkdir -p "$b"; tar -xJf .carry/r/ss2h/bins.tar.xz -C "$b"
export LD_LIBRARY_PATH=$b VQX_FIXTURES=$FX VQX_REQUIRE_FIXTURES=1
L=$D/detail.log; run=$b/vqx_run_pair; cs=/usr/local/cuda/bin/compute-sanitizer; ncu=/usr/local/cuda/bin/ncu
t=$b/ssimulacra2_cuda_test; W="VQX_SS2_HBLUR=warpa"
o=/dev/shm/ss2h_o; mkdir -p $o
{
echo "=== correctness (parallel) $(el)"
( timeout 46 $t --gtest_filter='*Variants*' > $o/var.log 2>&1; echo "=== exit $?" >> $o/var.log ) &
( timeout 46 $t --gtest_filter='*Stages*:*Synthetic*' > $o/stages.log 2>&1; echo "=== exit $?" >> $o/stages.log ) &
( VQX_SS2_TEST_HWARPS=0 VQX_SS2_TEST_HASYNC=1 timeout 46 $t --gtest_filter='*Stages*' > $o/stagesw.log 2>&1; echo "=== exit $?" >> $o/stagesw.log ) &
( timeout 46 $t --gtest_filter='*Determinism*' > $o/det.log 2>&1; echo "=== exit $?" >> $o/det.log ) &
( timeout 46 $t --gtest_filter='*Strips*' > $o/strips.log 2>&1; echo "=== exit $?" >> $o/strips.log ) &
( env $W timeout 46 $t --gtest_filter='*HundredRuns*' > $o/detw.log 2>&1; echo "=== exit $?" >> $o/detw.log ) &
( timeout 46 $b/cuda_parity_test --gtest_filter='*ssimulacra2*:*EveryTwin*' > $o/par.log 2>&1; echo "=== exit $?" >> $o/par.log ) &
( env $W timeout 46 $b/cuda_parity_test --gtest_filter='*ssimulacra2*' > $o/parw.log 2>&1; echo "=== exit $?" >> $o/parw.log ) &
for tool in memcheck racecheck; do
  ( for kv in "VQX_SS2_HBLUR=poles2" "$W"; do for p in n576 odd853; do
      echo "=== $tool $p 1 frame, $kv (default XYB = fast)"
      env $kv timeout 40 $cs --tool $tool --error-exitcode 9 $run --frames 1 $FX/$p/ref.y4m $FX/$p/dis.y4m ssimulacra2 2>&1 | tail -1
      echo "=== exit ${PIPESTATUS[0]}"
    done; done ) > $o/san_$tool.log 2>&1 &
done
wait
echo "=== correctness done $(el)"
for f in stages stagesw; do echo "--- $f"; grep -E "^stages|FAILED|PASSED|Failure|=== exit" $o/$f.log | cut -c1-200 | head -32; done
echo "--- variants"; grep -cE "^variants .*same bits" $o/var.log | sed 's/^/variant comparisons with same bits: /'
grep -E "^warp rows.* [1-9][0-9]* rows differ|^cbrt|^division|FAILED|PASSED|Failure|=== exit" $o/var.log | cut -c1-200 | head -20
for f in det detw strips par parw; do echo "--- $f"; grep -E "^determinism|^parity|max|FAILED|PASSED|Failure|=== exit" $o/$f.log | cut -c1-200 | head -24; done
cat $o/san_*.log
echo "=== device bench (graph replay) $(el)"
timeout 26 $b/ssimulacra2_cuda_bench --benchmark_counters_tabular=true --benchmark_filter='Ssimulacra2Device/' 2>&1 | grep -E "^BM_|^Bench"
echo "=== throughput (engine, frames in flight) $(el)"
timeout 14 $b/cuda_throughput_bench --benchmark_counters_tabular=true --benchmark_filter='ssimulacra2_k' 2>&1 | grep -E "^BM_|^Bench"
echo "--- VQX_SS2_STRIPS=1 (ss2v's strips, knob) with the fast XYB"
VQX_SS2_STRIPS=1 timeout 8 $b/cuda_throughput_bench --benchmark_counters_tabular=true --benchmark_filter='4k_ssimulacra2_k[12]' 2>&1 | grep -E "^BM_"
echo "=== profile $(el)"
for p in uhd4k band1080; do
  r=$FX/$p/ref.y4m; d=$FX/$p/dis.y4m
  echo "--- $p default"; timeout 8 $run --profile $r $d ssimulacra2 2>&1 | grep -E "ssimulacra2:|peak|ms_per_frame"
  for kv in "VQX_SS2_XYB=plain" "" "$W"; do
    echo "--- $p scales in sequence $kv"; env VQX_SS2_SEQUENTIAL=1 $kv timeout 8 $run --profile $r $d ssimulacra2 2>&1 | grep -E "s0 |s1 |ms_per_frame"
  done
done
for k in poles2 warpa; do
  l=$(left)
  if [ "$l" -gt 6 ]; then
    echo "=== ncu VQX_SS2_HBLUR=$k, 4K scale 0 $(el)"
    env VQX_SS2_SEQUENTIAL=1 VQX_SS2_HBLUR=$k timeout $((l - 1)) $ncu --clock-control none -k regex:'blur_rows_(warp|poles2|async)' -c 1 \
      --section SpeedOfLight --section WarpStateStats --section InstructionStats \
      --metrics regex:'smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
      $run --frames 1 $FX/uhd4k/ref.y4m $FX/uhd4k/dis.y4m ssimulacra2 2>&1 | grep -vE "^==PROF==|^ *-+ *-+|^ *$" | grep -vE ' 0(\.0+)?$' | grep -E 'stalled|Duration|Executed Inst|Cycles Per Issued|Throughput|blur_rows|Registers' | head -40
  fi
done
echo "=== done $(el)"
} > $L 2>&1
cat $o/stages.log $o/stagesw.log $o/var.log $o/det.log $o/detw.log $o/strips.log $o/par.log $o/parw.log > $D/tests.log 2>/dev/null
grep -E "^=== |^--- |^stages .*(uhd4k|band1080)|^cbrt|^division|^determinism|^variant comp|^warp rows.* [1-9][0-9]* rows differ|FAILED|PASSED|exit [1-9]|ERROR SUMMARY|RACECHECK SUMMARY|^BM_|s0 |peak|Duration|Executed Ins|Cycles Per Issued|Throughput|stalled_" $L | sed -e 's/BM_Ssimulacra2Device.//' -e 's/BM_CudaThroughput.//' -e 's/.iterations:2.manual_time//' | cut -c1-150 | tail -120
