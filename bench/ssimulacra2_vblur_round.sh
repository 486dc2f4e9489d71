#!/usr/bin/env bash
# ss2v, session 15 round 1: the lean vertical pass + terms kernel (VQX_SS2_VBLUR=lean, lean4,
# lean4b2, leana, leana4, leana4b2, leanab, leana4b2b, leanp) beside the default (fast): bits, sanitizers, speed, ncu. <= 70 s.
set -u
T0=$(date +%s); el() { echo "[t=$(( $(date +%s) - T0 ))s]"; }
left() { echo $(( 67 - ($(date +%s) - T0) )); }
b=/dev/shm/ss2v; mkdir -p "$b"; tar -xJf .carry/r/ss2v/bins.tar.xz -C "$b"
export LD_LIBRARY_PATH=$b VQX_FIXTURES=$FX VQX_REQUIRE_FIXTURES=1 VQX_SHARED_DIR=$SHARED
L=$D/detail.log; run=$b/vqx_run_pair; cs=/usr/local/cuda/bin/compute-sanitizer; ncu=/usr/local/cuda/bin/ncu
t=$b/ssimulacra2_cuda_test; o=/dev/shm/ss2v_o; mkdir -p $o
{
echo "=== correctness (parallel) $(el)"
( VQX_SS2_TEST_VARIANTS=lean timeout 23 $t --gtest_filter='*KernelVariantsSameBits*:*FastDivision*' > $o/var.log 2>&1; echo "=== exit $?" >> $o/var.log ) &
( VQX_SS2_TEST_VLEAN=3 timeout 23 $t --gtest_filter='*Stages*:*Synthetic*' > $o/stages.log 2>&1; echo "=== exit $?" >> $o/stages.log ) &
( VQX_SS2_TEST_VLEAN=10 timeout 23 $t --gtest_filter='*Stages*' > $o/stagesa.log 2>&1; echo "=== exit $?" >> $o/stagesa.log ) &
( VQX_SS2_VBLUR=lean timeout 23 $b/cuda_parity_test --gtest_filter='*simulacra2*' > $o/par.log 2>&1; echo "=== exit $?" >> $o/par.log ) &
for grp in "lean:memcheck:n576 leanp:memcheck:odd853" "leanp:racecheck:n576 leana4b2b:racecheck:odd853"; do
  ( for kv in $grp; do IFS=: read v tool p <<< "$kv"
      echo "=== $tool $p 1 frame VQX_SS2_VBLUR=$v"
      VQX_SS2_VBLUR=$v timeout 11 $cs --tool $tool --error-exitcode 9 $run --frames 1 $FX/$p/ref.y4m $FX/$p/dis.y4m ssimulacra2 2>&1 | tail -1
      echo "=== exit ${PIPESTATUS[0]}"; done ) > $o/san_${grp%%:*}.log 2>&1 &
done
wait
echo "=== correctness done $(el)"
for f in stages stagesa var par; do echo "--- $f"; grep -E "^stages|^division|FAILED|PASSED|Failure|=== exit|max" $o/$f.log | cut -c1-200 | head -30; done
grep -cE "^variants .*same bits" $o/var.log | sed 's/^/lean variant comparisons with same bits: /'
cat $o/san_*.log
echo "=== device bench (graph replay) $(el)"
B2="$b/ssimulacra2_cuda_bench --benchmark_counters_tabular=true"
timeout 14 $B2 --benchmark_filter='Ssimulacra2Device/4k(_lean|_leana|_leana4b2|_leanab|_leana4b2b|_leanp)?$' 2>&1 | grep -E "^BM_"
timeout 8 $B2 --benchmark_filter='Ssimulacra2Device/1080p(_lean|_leana|_leana4b2|_leanab|_leana4b2b|_leanp)?$' 2>&1 | grep -E "^BM_"
timeout 6 $B2 --benchmark_filter='Ssimulacra2Device/4k_(default|lean|leanp)_sequential$' 2>&1 | grep -E "^BM_"
echo "=== profile 4K, scales in sequence $(el)"
for v in fast leanp; do echo "--- VQX_SS2_VBLUR=$v"; VQX_SS2_SEQUENTIAL=1 VQX_SS2_VBLUR=$v timeout 5 $run --profile $FX/uhd4k/ref.y4m $FX/uhd4k/dis.y4m ssimulacra2 2>&1 | grep -E "s0 |ms_per_frame"; done
for v in leanp lean fast; do
  l=$(left)
  if [ "$l" -gt 5 ]; then
    echo "=== ncu VQX_SS2_VBLUR=$v 4K scale 0 $(el)"
    VQX_SS2_SEQUENTIAL=1 VQX_SS2_VBLUR=$v timeout $((l - 1)) $ncu --clock-control none -k regex:'blur_columns' -c 1 \
      --section SpeedOfLight --section Occupancy --section WarpStateStats --section InstructionStats \
      $run --frames 1 $FX/uhd4k/ref.y4m $FX/uhd4k/dis.y4m ssimulacra2 2>&1 | grep -vE "^==PROF==|^ *-+ *-+|^ *$" | grep -E 'stalled|Stall|Duration|Executed Inst|Cycles Per Issued|Throughput|blur_col|Registers|Achieved|Theoretical Occ|Block Limit' | head -30
  fi
done
echo "=== done $(el)"
} > $L 2>&1
cat $o/stages.log $o/stagesa.log $o/var.log $o/par.log > $D/tests.log 2>/dev/null
grep -E "^=== |^--- |^stages .*(uhd4k|band1080)|^division|^lean variant|FAILED|PASSED|exit [1-9]|ERROR SUMMARY|RACECHECK SUMMARY|^BM_|s0 |Duration|Executed Ins|Cycles Per Issued" $L | sed -e 's/BM_Ssimulacra2Device.//' -e 's/.iterations:2.manual_time//' | cut -c1-150 | tail -60
