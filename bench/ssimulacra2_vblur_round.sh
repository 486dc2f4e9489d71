#!/usr/bin/env bash
# ss2v, session 15 round 3: proof of the merged branch (s15_lead's transposed XYB + the leanp
# vertical/terms kernel as the default, its XYB samples now copied coalesced per block;
# VQX_SS2_VBLUR=fast = session 14's vertical kernel). <= 60 s.
set -u
T0=$(date +%s); el() { echo "[t=$(( $(date +%s) - T0 ))s]"; }
left() { echo $(( 57 - ($(date +%s) - T0) )); }
b=/dev/shm/ss2v; mkdir -p "$b"; tar -xJf .carry/r/ss2v/bins.tar.xz -C "$b"
export LD_LIBRARY_PATH=$b VQX_FIXTURES=$FX VQX_REQUIRE_FIXTURES=1 VQX_SHARED_DIR=$SHARED
L=$D/detail.log; run=$b/vqx_run_pair; cs=/usr/local/cuda/bin/compute-sanitizer; ncu=/usr/local/cuda/bin/ncu
t=$b/ssimulacra2_cuda_test; o=/dev/shm/ss2v_o; rm -rf $o; mkdir -p $o
g() { local name=$1; shift; ( timeout 27 "$@" > $o/$name.log 2>&1; echo "=== exit $?" >> $o/$name.log ) & }
{
echo "=== all ssimulacra2_cuda_test tests, parity, sanitizers (parallel) $(el)"
g stages $t --gtest_filter='*Stages*:*Synthetic*'
g varall $t --gtest_filter='*KernelVariantsSameBits*'
g varoth $t --gtest_filter='*Variants*:-*KernelVariantsSameBits*'
g det $t --gtest_filter='*Determinism*'
g strips $t --gtest_filter='*Strips*'
g rowmaj env VQX_SS2_TEST_ROWMAJOR=1 $t --gtest_filter='*Stages*'
g par $b/cuda_parity_test --gtest_filter='*simulacra2*:*EveryTwin*'
for tool in memcheck racecheck; do
  ( for p in n576 odd853; do echo "=== $tool $p 1 frame (default)"
      timeout 13 $cs --tool $tool --error-exitcode 9 $run --frames 1 $FX/$p/ref.y4m $FX/$p/dis.y4m ssimulacra2 2>&1 | tail -1
      echo "=== exit ${PIPESTATUS[0]}"; done ) > $o/san_$tool.log 2>&1 &
done
wait
echo "=== correctness done $(el)"
for f in stages varall varoth det strips rowmaj par; do echo "--- $f: $(grep -E '^\[  PASSED|^\[  FAILED' $o/$f.log | tr '\n' ' ') $(grep -E '=== exit' $o/$f.log)"; grep -E "^\[  FAILED|Failure" $o/$f.log | head -8; done
grep -cE "^variants .*same bits" $o/varall.log | sed 's/^/KernelVariantsSameBits comparisons with same bits: /'
grep -E "^division|^cbrt|^determinism|^warp rows" $o/varoth.log $o/det.log | cut -c1-160 | head -8
grep -E "^stages .*(uhd4k|band1080|hbd720|odd853|n576)" $o/stages.log | cut -c1-150
grep -E "max \|diff\|" $o/par.log | cut -c1-150
cat $o/san_*.log
echo "=== device bench (graph replay, 2 x 200 frames) $(el)"
B2="$b/ssimulacra2_cuda_bench --benchmark_counters_tabular=true"
timeout 12 $B2 --benchmark_filter='Ssimulacra2Device/((1080p|4k)(_fast14|_rowmajor|_default_x2|_fast14_x2)?|4k_rowmajor_fast14)/' 2>&1 | grep -E "^BM_|rror"
echo "=== throughput (engine, K frames in flight) $(el)"
timeout 9 $b/cuda_throughput_bench --benchmark_counters_tabular=true --benchmark_filter='ssimulacra2_k[124]/' 2>&1 | grep -E "^BM_|rror"
echo "--- VQX_SS2_VBLUR=fast (session 14's vertical kernel), K=1/2"
VQX_SS2_VBLUR=fast timeout 6 $b/cuda_throughput_bench --benchmark_counters_tabular=true --benchmark_filter='ssimulacra2_k[12]/' 2>&1 | grep -E "^BM_|rror"
echo "=== profile (default schedule, eager) $(el)"
for p in band1080 uhd4k; do echo "--- $p"; timeout 6 $run --profile $FX/$p/ref.y4m $FX/$p/dis.y4m ssimulacra2 2>&1 | grep -E "ssimulacra2:|peak|ms_per_frame"; done
for v in "" fast; do echo "--- uhd4k scales in sequence VQX_SS2_VBLUR=${v:-default}"; VQX_SS2_SEQUENTIAL=1 VQX_SS2_VBLUR=$v timeout 4 $run --profile $FX/uhd4k/ref.y4m $FX/uhd4k/dis.y4m ssimulacra2 2>&1 | grep -E "s0 |ms_per_frame"; done
l=$(left)
if [ "$l" -gt 6 ]; then
  echo "=== ncu default (leanp, transposed XYB) 4K scale 0 $(el)"
  VQX_SS2_SEQUENTIAL=1 timeout $((l - 1)) $ncu --clock-control none -k regex:'blur_columns' -c 1 --section SpeedOfLight --section WarpStateStats \
    $run --frames 1 $FX/uhd4k/ref.y4m $FX/uhd4k/dis.y4m ssimulacra2 2>&1 | grep -E 'Duration|Cycles Per Issued|Throughput|blur_col' | cut -c1-120 | head -12
fi
echo "=== done $(el)"
} > $L 2>&1
cat $o/stages.log $o/varall.log $o/varoth.log $o/det.log $o/strips.log $o/rowmaj.log $o/par.log > $D/tests.log 2>/dev/null
grep -E "^=== |^--- |exit [1-9]|ERROR SUMMARY|RACECHECK SUMMARY|^KernelVariants|^BM_|s0 blur V|peak|Duration" $L | sed -e 's/BM_Ssimulacra2Device.//' -e 's/BM_CudaThroughput.//' -e 's/.iterations:2.manual_time//' | cut -c1-150 | tail -70
