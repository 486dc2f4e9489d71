#!/usr/bin/env bash
# cambi round 3 (final proof). New knobs: VQX_CAMBI_CUDA_DENSE=fork|forkc (a classification kernel
# lists the dense tiles first; the dense kernel runs on a forked high-priority stream beside the
# compact kernel), VQX_CAMBI_CUDA_DENSE_SPLIT=N (dense tiles done as N row pieces),
# VQX_CAMBI_CUDA_TILE_ROWS=auto (16 rows below 4K). Phase A (parallel): stage tests, cambi_cuda_test
# + parity rows for the default and two candidates, bits md5 of every variant, sanitizers.
# Phase B (serial): --profile per variant, full tables, single-frame wall (graphs, serial engine).
set -u
T0=$(date +%s); el() { echo "[t=$(( $(date +%s) - T0 ))s]"; }
left() { echo $(( 104 - ($(date +%s) - T0) )); }
b=/dev/shm/cambi; mkdir -p "$b"; tar -xJf .carry/r/cambi/bins.tar.xz -C "$b"
export LD_LIBRARY_PATH=$b VQX_FIXTURES=$FX VQX_REQUIRE_FIXTURES=1
L=$D/run.log; run=$b/vqx_run_pair; cs=/usr/local/cuda/bin/compute-sanitizer
w=/dev/shm/cambi_long; mkdir -p $w; t=/dev/shm/cambi_t; mkdir -p $t
for s in ref dis; do
  python3 bench/make_long_y4m.py $FX/band1080/$s.y4m $w/b_$s.y4m 120 >/dev/null &
  python3 bench/make_long_y4m.py $FX/uhd4k/$s.y4m $w/u_$s.y4m 40 >/dev/null &
done
C1="VQX_CAMBI_CUDA_DENSE=fork VQX_CAMBI_CUDA_DENSE_SPLIT=2 VQX_CAMBI_CUDA_TILE_ROWS=auto"
C2="VQX_CAMBI_CUDA_DENSE=forkc VQX_CAMBI_CUDA_DENSE_SPLIT=2 VQX_CAMBI_CUDA_TILE_ROWS=auto"
envof() { case $1 in
  r16) echo VQX_CAMBI_CUDA_TILE_ROWS=16;; auto) echo VQX_CAMBI_CUDA_TILE_ROWS=auto;;
  s2) echo VQX_CAMBI_CUDA_DENSE_SPLIT=2;; s4) echo VQX_CAMBI_CUDA_DENSE_SPLIT=4;;
  fork) echo VQX_CAMBI_CUDA_DENSE=fork;; forkc) echo VQX_CAMBI_CUDA_DENSE=forkc;;
  fork_s2) echo VQX_CAMBI_CUDA_DENSE=fork VQX_CAMBI_CUDA_DENSE_SPLIT=2;;
  forkc_s2) echo VQX_CAMBI_CUDA_DENSE=forkc VQX_CAMBI_CUDA_DENSE_SPLIT=2;;
  forkc_s4) echo VQX_CAMBI_CUDA_DENSE=forkc VQX_CAMBI_CUDA_DENSE_SPLIT=4;;
  C1) echo $C1;; C2) echo $C2;;
  r8) echo VQX_CAMBI_CUDA_TILE_ROWS=8;;
  C4) echo VQX_CAMBI_CUDA_DENSE=forkc VQX_CAMBI_CUDA_DENSE_SPLIT=2 VQX_CAMBI_CUDA_TILE_ROWS=24;;
  C5) echo VQX_CAMBI_CUDA_DENSE=fork VQX_CAMBI_CUDA_DENSE_SPLIT=2 VQX_CAMBI_CUDA_TILE_ROWS=auto VQX_CAMBI_CUDA_DENSE_GRID=132;;
  C6) echo VQX_CAMBI_CUDA_DENSE=fork VQX_CAMBI_CUDA_DENSE_SPLIT=4 VQX_CAMBI_CUDA_TILE_ROWS=auto VQX_CAMBI_CUDA_DENSE_GRID=264;;
  C3) echo VQX_CAMBI_CUDA_DENSE=forkc VQX_CAMBI_CUDA_DENSE_SPLIT=4 VQX_CAMBI_CUDA_TILE_ROWS=auto;;
  *) echo VQX_CAMBI_CUDA_X=0;; esac; }
V="C1 C2 C3 C5 C6 forkc_s2 fork_s2 r16 s2 forkc fork forkc_s4 s4 r8 C4 default"
{
echo "=== A parallel correctness $(el)"
f() { local n=$1; shift; ( "$@" > $t/$n 2>&1; echo "exit $?" >> $t/$n ) & }
f cv_default timeout 60 $b/cambi_cuda_cvalues_test
f cv_fork_s2 env VQX_CAMBI_CUDA_DENSE=fork VQX_CAMBI_CUDA_DENSE_SPLIT=2 timeout 60 $b/cambi_cuda_cvalues_test
f cv_forkc_s3 env VQX_CAMBI_CUDA_DENSE=forkc VQX_CAMBI_CUDA_DENSE_SPLIT=3 timeout 60 $b/cambi_cuda_cvalues_test
f premask timeout 40 $b/cambi_cuda_premask_test
f ct_default timeout 60 $b/cambi_cuda_test
f ct_C1 env $C1 timeout 60 $b/cambi_cuda_test
f ct_C2 env $C2 timeout 60 $b/cambi_cuda_test
f pa_default timeout 60 $b/cuda_parity_test --gtest_filter='*ambi*:*EveryTwinHasARow*'
f pa_C1 env $C1 timeout 60 $b/cuda_parity_test --gtest_filter='*ambi*:*EveryTwinHasARow*'
f pa_C2 env $C2 timeout 60 $b/cuda_parity_test --gtest_filter='*ambi*:*EveryTwinHasARow*'
f mc_C1 env $C1 timeout 60 $cs --tool memcheck --error-exitcode 9 $run --frames 2 $FX/hbd720/ref.y4m $FX/hbd720/dis.y4m cambi=full_ref=true
f rc_C1 env $C1 timeout 60 $cs --tool racecheck --error-exitcode 9 $run --frames 2 $FX/hbd720/ref.y4m $FX/hbd720/dis.y4m cambi=full_ref=true
f rc_C2 env $C2 timeout 60 $cs --tool racecheck --error-exitcode 9 $run --frames 1 $FX/band1080/ref.y4m $FX/band1080/dis.y4m cambi
f mc_default timeout 60 $cs --tool memcheck --error-exitcode 9 $run --frames 2 $FX/hbd720/ref.y4m $FX/hbd720/dis.y4m cambi=full_ref=true
f rc_default timeout 60 $cs --tool racecheck --error-exitcode 9 $run --frames 2 $FX/hbd720/ref.y4m $FX/hbd720/dis.y4m cambi=full_ref=true
f mc_u_C2 env $C2 timeout 60 $cs --tool memcheck --error-exitcode 9 $run --frames 1 $FX/uhd4k/ref.y4m $FX/uhd4k/dis.y4m cambi
f mc_odd_C1 env $C1 VQX_CAMBI_CUDA_TILE_K=32 timeout 60 $cs --tool memcheck --error-exitcode 9 $run --frames 1 $FX/odd853/ref.y4m $FX/odd853/dis.y4m cambi=eotf=pq:max_log_contrast=3
for pair in band1080 uhd4k hbd720 odd853 n576; do (

    cfg=cambi; [ $pair = hbd720 ] && cfg=cambi=full_ref=true; [ $pair = odd853 ] && cfg=cambi=eotf=pq:max_log_contrast=3
    line="$pair $cfg:"
    vs="cpu $V"; case $pair in band1080|uhd4k) ;; *) vs="cpu default C1 C2 C3 s4";; esac
    for v in $vs; do
      be=cuda; [ $v = cpu ] && be=cpu
      line="$line $v=$(env $(envof $v) timeout 20 $run --backend $be --threads 8 --print cambi $FX/$pair/ref.y4m $FX/$pair/dis.y4m $cfg 2>&1 | grep -E "^cambi\[" | md5sum | cut -c1-8)"
    done
    echo "$line" > $t/md5_$pair
  ) & done
wait
for n in cv_default cv_fork_s2 cv_forkc_s3 premask ct_default ct_C1 ct_C2 pa_default pa_C1 pa_C2; do
  echo "--- $n"; grep -vE "^\[ +(RUN|OK) " $t/$n | head -150
done
for n in mc_C1 rc_C1 rc_C2 mc_default rc_default mc_u_C2 mc_odd_C1; do echo "--- $n"; grep -E "SUMMARY|^exit" $t/$n; done
echo "--- bits (md5 of per-frame cambi lines; uhd4k: cuda differs from cpu by design, spec 10.5)"; cat $t/md5_*
echo "=== C full tables and single-frame wall (graphs, VQX_CUDA_METRIC_STREAMS=0) $(el)"
for v in default C1 C2; do
  [ $(left) -lt 12 ] && { echo "stop: time"; break; }
  for p in b u; do
    echo "--- profile $v $p"; env $(envof $v) timeout 15 $run --profile $w/${p}_ref.y4m $w/${p}_dis.y4m cambi 2>&1 | grep -vE "^cambi\["
    echo "--- wall $v $p serial: $(env $(envof $v) VQX_CUDA_METRIC_STREAMS=0 timeout 15 $run $w/${p}_ref.y4m $w/${p}_dis.y4m cambi 2>&1 | tail -1)"
    echo "--- wall $v $p engine default: $(env $(envof $v) timeout 15 $run $w/${p}_ref.y4m $w/${p}_dis.y4m cambi 2>&1 | tail -1)"
  done
done
echo "=== B profile per variant (c-values, device span, peak) $(el)"
for v in $V; do
  [ $(left) -lt 5 ] && { echo "stop: time"; break; }
  for p in b u; do
    echo "--- $v $p: $(env $(envof $v) timeout 15 $run --profile $w/${p}_ref.y4m $w/${p}_dis.y4m cambi 2>&1 | grep -E "dis c-values|device|peak|ms_per_frame" | tr -s ' ' | tr '\n' '|')"
  done
done
echo "=== end $(el)"
} > $L 2>&1
rm -rf $w $t
grep -E "^===|^---|tests ran|PASSED|FAILED|Failure|SUMMARY|^exit|^band1080|^uhd4k|^hbd720|^odd853|^n576|c-values|ms_per_frame|compared|cuda uhd4k|parity uhd4k" $L | cut -c1-220 | tail -150
