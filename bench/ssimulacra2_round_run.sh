#!/usr/bin/env bash
# (Session 16: a record of its round; the warp and poles3/poles4/groups/tiled kernels and their
# knobs were removed, see docs/ssimulacra2.md "Session 16: pruning". Not runnable as is.)
# ssimulacra2 speed pass (session 13, round 4: the final proof). The default horizontal pass is
# poles2; poles4 (VQX_SS2_HBLUR=poles4: poles2 with per-plane-set named barriers after the walk)
# is proven beside it (variant bits, schedules, parity and both sanitizers with the knob) so that
# either can be the default after the round. <= 110 s, run from the repo root as
# `bash .carry/r/ss2/run.sh` with FX (fixtures), D (log folder). Bits first (stage identity incl.
# every kernel variant, the division check, 100-run determinism, schedules/knobs; CLI parity on
# every fixture, default and poles4; memcheck + racecheck on one n576 and one odd853 frame,
# default and poles4), then alone on the GPU: device ms/frame per variant (graph replay),
# --profile stage tables, ncu sections of the horizontal pass at 4K scale 0 for both.
# Logs: $D/detail.log (everything below), $D/tests.log (the gpu test output).
set -u
T0=$(date +%s); el() { echo "[t=$(( $(date +%s) - T0 ))s]"; }
left() { echo $(( 104 - ($(date +%s) - T0) )); }
b=/dev/shm/ss2; mkdir -p "$b"; tar -xJf .carry/r/ss2/bins.tar.xz -C "$b"
export LD_LIBRARY_PATH=$b VQX_FIXTURES=$FX VQX_REQUIRE_FIXTURES=1
L=$D/detail.log; run=$b/vqx_run_pair; cs=/usr/local/cuda/bin/compute-sanitizer; ncu=/usr/local/cuda/bin/ncu
OLD="VQX_SS2_HBLUR=groups3 VQX_SS2_VBLUR=plain"   # the kernels before this pass (XYB is new in both)
P4="VQX_SS2_HBLUR=poles4"                          # the candidate horizontal pass
{
echo "=== correctness (parallel) $(el)"
( timeout 55 "$b/ssimulacra2_cuda_test" --gtest_filter='*Stages*:*Synthetic*' > /dev/shm/ss2_stages.log 2>&1; echo "=== exit $?" >> /dev/shm/ss2_stages.log ) &
( timeout 55 "$b/ssimulacra2_cuda_test" --gtest_filter='*Variants*:*Determinism*' > /dev/shm/ss2_variants.log 2>&1; echo "=== exit $?" >> /dev/shm/ss2_variants.log ) &
( timeout 50 "$b/cuda_parity_test" --gtest_filter='*ssimulacra2*:*EveryTwin*' > /dev/shm/ss2_parity.log 2>&1
  echo "=== exit $?" >> /dev/shm/ss2_parity.log ) &
( echo "=== parity with $P4"; env $P4 timeout 50 "$b/cuda_parity_test" --gtest_filter='*ssimulacra2*' 2>&1
  echo "=== exit $?" ) > /dev/shm/ss2_parity4.log 2>&1 &
for tool in memcheck racecheck; do
 for k in default poles4; do
  ( kv=VQX_SS2_HBLUR=poles2; [ $k = poles4 ] && kv=$P4
    echo "=== $tool n576 1 frame, $k"
    env $kv timeout 45 $cs --tool $tool --error-exitcode 9 $run --frames 1 $FX/n576/ref.y4m $FX/n576/dis.y4m ssimulacra2 2>&1 | tail -3
    echo "=== exit ${PIPESTATUS[0]}"
    echo "=== $tool odd853 1 frame, $k (scalar horizontal path)"
    env $kv timeout 45 $cs --tool $tool --error-exitcode 9 $run --frames 1 $FX/odd853/ref.y4m $FX/odd853/dis.y4m ssimulacra2 2>&1 | tail -3
    echo "=== exit ${PIPESTATUS[0]}" ) > /dev/shm/ss2_san_${tool}_$k.log 2>&1 &
 done
done
wait
echo "=== correctness done $(el)"
grep -E "^stages|FAILED|PASSED|Failure|=== exit|\[ *OK *\].*ms\)" /dev/shm/ss2_stages.log | cut -c1-200 | head -60
grep -cE "^variants .*same bits" /dev/shm/ss2_variants.log | sed 's/^/variant comparisons with same bits: /'
grep -E "^division|^determinism|FAILED|PASSED|Failure|=== exit|\[ *OK *\].*ms\)" /dev/shm/ss2_variants.log | cut -c1-200 | head -40
grep -E "^parity|FAILED|PASSED|=== exit|max" /dev/shm/ss2_parity.log | head -30
grep -E "^=== parity|^parity|FAILED|PASSED|=== exit|max" /dev/shm/ss2_parity4.log | head -30
cat /dev/shm/ss2_san_*.log
echo "=== device bench $(el)"
timeout 34 "$b/ssimulacra2_cuda_bench" --benchmark_counters_tabular=true 2>&1 | grep -v "^\*\*\*"
echo "=== profile $(el)"
for p in band1080 uhd4k; do
  r=$FX/$p/ref.y4m; d=$FX/$p/dis.y4m
  echo "--- $p default: --profile"; $run --profile $r $d ssimulacra2
  echo "--- $p sequential scales, default kernels: --profile"; VQX_SS2_SEQUENTIAL=1 $run --profile $r $d ssimulacra2
  echo "--- $p sequential scales, $P4: --profile"; env VQX_SS2_SEQUENTIAL=1 $P4 $run --profile $r $d ssimulacra2
  echo "--- $p default, $P4: --profile"; env $P4 $run --profile $r $d ssimulacra2
done
for k in poles2 poles4; do
  l=$(left)
  if [ "$l" -gt 10 ]; then
    echo "=== ncu VQX_SS2_HBLUR=$k horizontal pass, 4K scale 0 $(el)"
    env VQX_SS2_SEQUENTIAL=1 VQX_SS2_HBLUR=$k timeout $l $ncu --clock-control none -k regex:'poles' -c 1 \
      --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
      --section InstructionStats $run --frames 1 $FX/uhd4k/ref.y4m $FX/uhd4k/dis.y4m ssimulacra2 2>&1 | grep -vE "^==PROF==|^ *-+ *-+" | head -150
  fi
done
echo "=== done $(el)"
} > $L 2>&1
cat /dev/shm/ss2_stages.log /dev/shm/ss2_variants.log > $D/tests.log 2>/dev/null
grep -E "^=== |^stages .*uhd4k|^division|^determinism|^variant|FAILED|PASSED|exit [1-9]|ERROR SUMMARY|RACECHECK SUMMARY|^parity|^BM_|s0 |ms_per_frame|Duration|peak device" $L | sed -e 's/BM_Ssimulacra2Device.//' -e 's/.iterations:2.manual_time//' | cut -c1-150 | tail -110
