#!/usr/bin/env bash
# cambi round 4 (last device round, final proof of the defaults). Test binaries run one after
# another (round 3's parallel runs hit their timeouts); only light --print runs overlap them.
# New knobs: VQX_CAMBI_CUDA_TILE_ROWS_S=r0,r1,.. (tile height per scale; a missing entry repeats
# the last), VQX_CAMBI_CUDA_PASS_IDLE=1 (radix pass 0: blocks past a scale's values only take
# their ticket). The stage test's VQX_CAMBI_CUDA_TEST_PERSCALE=1 gives scale s tile_rows >> s rows.
set -u
T0=$(date +%s); el() { echo "[t=$(( $(date +%s) - T0 ))s]"; }
left() { echo $(( 106 - ($(date +%s) - T0) )); }
b=/dev/shm/cambi; mkdir -p "$b"; tar -xJf .carry/r/cambi/bins.tar.xz -C "$b"
export LD_LIBRARY_PATH=$b VQX_FIXTURES=$FX VQX_REQUIRE_FIXTURES=1
L=$D/run.log; run=$b/vqx_run_pair; cs=/usr/local/cuda/bin/compute-sanitizer
w=/dev/shm/cambi_long; mkdir -p $w; t=/dev/shm/cambi_t; mkdir -p $t
for s in ref dis; do
  python3 bench/make_long_y4m.py $FX/band1080/$s.y4m $w/b_$s.y4m 60 >/dev/null &
  python3 bench/make_long_y4m.py $FX/uhd4k/$s.y4m $w/u_$s.y4m 20 >/dev/null &
done
envof() { case $1 in
  idle) echo VQX_CAMBI_CUDA_PASS_IDLE=1;;
  p32_16) echo VQX_CAMBI_CUDA_TILE_ROWS_S=32,16;;
  p32_32_16) echo VQX_CAMBI_CUDA_TILE_ROWS_S=32,32,16;;
  p16_16_8) echo VQX_CAMBI_CUDA_TILE_ROWS_S=16,16,8;;
  p16_8) echo VQX_CAMBI_CUDA_TILE_ROWS_S=16,8;;
  p24_16) echo VQX_CAMBI_CUDA_TILE_ROWS_S=24,16;;
  p32_24_16) echo VQX_CAMBI_CUDA_TILE_ROWS_S=32,24,16;;
  *) echo VQX_CAMBI_CUDA_X=0;; esac; }
V="idle p32_16 p32_32_16 p16_16_8 p16_8 p24_16 p32_24_16"
{
echo "=== 0 bits in the background: md5 of per-frame --print lines per variant $(el)"
( for pair in band1080 hbd720 uhd4k n576 odd853; do
    cfg=cambi; [ $pair = hbd720 ] && cfg=cambi=full_ref=true; [ $pair = odd853 ] && cfg=cambi=eotf=pq:max_log_contrast=3
    line="$pair $cfg:"; vs="cpu default $V"; case $pair in n576|odd853) vs="cpu default idle p32_16 p16_8";; esac
    for v in $vs; do
      be=cuda; [ $v = cpu ] && be=cpu
      line="$line $v=$(env $(envof $v) timeout 20 $run --backend $be --threads 6 --print cambi $FX/$pair/ref.y4m $FX/$pair/dis.y4m $cfg 2>&1 | grep -E "^cambi\[" | md5sum | cut -c1-8)"
    done
    echo "$line"
  done > $t/md5 2>&1 ) &
M=$!
echo "=== 1 stage test, default schedule below 4K (forkc, dense split 2) $(el)"
VQX_CAMBI_CUDA_DENSE=forkc VQX_CAMBI_CUDA_DENSE_SPLIT=2 timeout 45 $b/cambi_cuda_cvalues_test; echo "exit $?"
echo "=== 2 stage test, 4K schedule (forkc, split 1) + per-scale tile heights, multi-plane cases $(el)"
VQX_CAMBI_CUDA_DENSE=forkc VQX_CAMBI_CUDA_DENSE_SPLIT=1 VQX_CAMBI_CUDA_TEST_PERSCALE=1 timeout 30 $b/cambi_cuda_cvalues_test --gtest_filter='*EveryScale*:*EveryBand*:*Uhd*'; echo "exit $?"
echo "=== 3 premask $(el)"
timeout 15 $b/cambi_cuda_premask_test; echo "exit $?"
wait $M
echo "=== 4 cambi_cuda_test (fixtures x golden configs, options, repeat, errors), default $(el)"
timeout 30 $b/cambi_cuda_test; echo "exit $?"
echo "=== 5 parity rows, default $(el)"
timeout 25 $b/cuda_parity_test --gtest_filter='*ambi*:*EveryTwinHasARow*'; echo "exit $?"
echo "--- bits (md5; uhd4k: cuda differs from cpu by design, spec 10.5; round 3 cuda = 787c9a61)"; cat $t/md5
echo "=== 6 sanitizers, default $(el)"
echo "--- memcheck hbd720 full_ref 2 frames"; timeout 20 $cs --tool memcheck --error-exitcode 9 $run --frames 2 $FX/hbd720/ref.y4m $FX/hbd720/dis.y4m cambi=full_ref=true 2>&1 | grep -E "SUMMARY"; echo "exit ${PIPESTATUS[0]}"
echo "--- racecheck hbd720 full_ref 2 frames"; timeout 20 $cs --tool racecheck --error-exitcode 9 $run --frames 2 $FX/hbd720/ref.y4m $FX/hbd720/dis.y4m cambi=full_ref=true 2>&1 | grep -E "SUMMARY"; echo "exit ${PIPESTATUS[0]}"
echo "--- racecheck band1080 1 frame, idle + 32,16 rows"; VQX_CAMBI_CUDA_PASS_IDLE=1 VQX_CAMBI_CUDA_TILE_ROWS_S=32,16 timeout 15 $cs --tool racecheck --error-exitcode 9 $run --frames 1 $FX/band1080/ref.y4m $FX/band1080/dis.y4m cambi 2>&1 | grep -E "SUMMARY"; echo "exit ${PIPESTATUS[0]}"
echo "=== 7 --profile default, full tables (band1080 x60, uhd4k x20) $(el)"
for p in b u; do
  echo "--- profile default $p"; timeout 15 $run --profile $w/${p}_ref.y4m $w/${p}_dis.y4m cambi 2>&1 | grep -vE "^cambi\["
done
echo "=== 8 variants: stage times (two passes, alternating) $(el)"
for rep in 1 2; do
  for v in default $V; do
    for p in b u; do
      [ $(left) -lt 3 ] && { echo "stop: time"; break 3; }
      echo "--- r$rep $v $p: $(env $(envof $v) timeout 10 $run --profile $w/${p}_ref.y4m $w/${p}_dis.y4m cambi 2>&1 | grep -E "cambi: |device span" | sed 's/  */ /g' | tr '\n' '|')"
    done
  done
done
echo "=== end $(el)"
} > $L 2>&1
rm -rf $w $t
grep -E "^===|^---|tests ran|PASSED|FAILED|Failure|SUMMARY|^exit|pixels compared|^band1080|^uhd4k|^hbd720|^odd853|^n576|c-values|ms_per_frame|device" $L | cut -c1-300 | tail -120
