#!/usr/bin/env bash
# (Session 16: a record of its round. Most window / decimation variants it names (VQX_SSIM_WIN
# other than 38 and 44, VQX_SSIM_DEC other than 26, 28 and 32, VQX_SSIM_PYR, the removed test
# names) were removed, see docs/float_ms_ssim.md "Session 16: pruning"; an unknown knob value
# now selects the default. Not runnable as is.)
# ms (float_ms_ssim CUDA), session 15 round 2 (the last): (1) engine throughput K=1/2/4 at 1080p
# and 4K (cuda_throughput_bench) of session 14's window 33 and the strip kernels 38-43 x tiles per
# strip; the fastest (4K K=4 first, 1080p K=4 not worse than 33) is (2) proven: the whole
# float_ms_ssim_cuda_test (every stage of every variant vs the plain twins, the strip kernels vs
# window 33's partials, the 102-frame fixture contract, repeats), the cuda_parity_test float_ms_ssim
# / float_ssim rows, memcheck + racecheck on odd853, all with the picked VQX_SSIM_WIN/STRIP (none
# when it is the compiled-in default) in parallel; (3) ncu of the picked and 33's window launch.
set -u
T0=$(date +%s); el() { echo "[t=$(( $(date +%s) - T0 ))s]"; }
left() { echo $(( 68 - ($(date +%s) - T0) )); }
b=/dev/shm/ms; mkdir -p $b; tar -xJf .carry/r/ms/bins.tar.xz -C $b
unset VQX_SSIM_WIN VQX_SSIM_DEC VQX_SSIM_RED VQX_SSIM_FORK VQX_SSIM_PYR VQX_SSIM_RSPLIT VQX_SSIM_STRIP
export LD_LIBRARY_PATH=$b VQX_FIXTURES=$FX VQX_REQUIRE_FIXTURES=1 VQX_SHARED_DIR=$SHARED
o=/dev/shm/ms_o; mkdir -p $o; cs=/usr/local/cuda/bin/compute-sanitizer; run=$b/vqx_run_pair; tp=$b/cuda_throughput_bench
DEFAULT="41:4"   # the compiled-in default (window:strip)
tput() {  # tput label window strip -> one line "label 1080p_k1 .. 4k_k4 peak"
  if [ $2 = 0 ]; then e=""; else e="VQX_SSIM_WIN=$2 VQX_SSIM_STRIP=$3"; fi
  env $e timeout 8 $tp --benchmark_filter='BM_CudaThroughput/(1080p|4k)_float_ms_ssim_k' --benchmark_counters_tabular=true > $o/tp_$1.txt 2>&1
  echo "$1 $(grep -E '^BM_' $o/tp_$1.txt | awk '{n=$1; sub(/BM_CudaThroughput\//,"",n); sub(/_float_ms_ssim/,"",n); sub(/\/.*/,"",n); printf "%s %.4f ", n, $2} END {}') peak4k $(grep -E '^BM_CudaThroughput/4k_float_ms_ssim_k4' $o/tp_$1.txt | awk '{print $(NF-1)}')" | tee -a $o/tp_all.txt
}
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "=== (1) throughput ms/frame, label = w<window>s<strip> (0s0 = compiled-in default) $(el)"
tput w33s1 33 1
for c in 41:4 38:1 38:4 39:4 40:4 41:1 41:2 41:8 40:2 38:2 42:4 43:4; do
  [ $(( $(date +%s) - T0 )) -gt 21 ] && { echo "skip $c (time)"; continue; }
  tput w${c%%:*}s${c##*:} ${c%%:*} ${c##*:}
done
tput w33s1again 33 1
best=$(python3 - $o/tp_all.txt <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 13: continue
    d = dict(zip(f[1::2], f[2::2]))
    try: rows.setdefault(f[0].replace("again", ""), []).append({k: float(d[k]) for k in ("1080p_k1", "1080p_k4", "4k_k1", "4k_k4")})
    except (KeyError, ValueError): pass
avg = {k: {m: sum(r[m] for r in v) / len(v) for m in v[0]} for k, v in rows.items()}
base = avg.get("w33s1")
sc = lambda v: v["4k_k4"] + 0.25 * v["4k_k1"] + 0.5 * (v["1080p_k4"] + 0.25 * v["1080p_k1"])
best, score = "w33s1", (sc(base) - 0.002 if base else None)  # a new kernel must win by > 0.002
for k, v in avg.items():
    if base and v["1080p_k4"] > base["1080p_k4"] + 0.0015: continue
    if score is None or sc(v) < score: best, score = k, sc(v)
print(best.replace("w", "").replace("s", " "))
PY
)
read -r BW BS <<< "$best"
echo "picked: window $BW strip $BS (compiled-in default $DEFAULT)"
[ -z "$BW" ] && { BW=33; BS=1; }
if [ "$BW:$BS" = "$DEFAULT" ]; then E=""; else E="VQX_SSIM_WIN=$BW VQX_SSIM_STRIP=$BS"; fi
PT=$(( $(left) - 8 < 42 ? $(left) - 8 : 42 )); echo "=== (2) proof (timeouts $PT s) with [${E:-no knobs: the compiled-in default}], in parallel $(el)"
t=$b/float_ms_ssim_cuda_test
( env $E timeout $PT $t --gtest_filter='SsimCudaStages.EverySpeedVariantBitIdentical' > $o/t_a.log 2>&1; echo "=== exit $?" >> $o/t_a.log ) &
( env $E timeout $PT $t --gtest_filter='SsimCudaStages.EverySpeedVariantBitIdenticalRuns' > $o/t_b.log 2>&1; echo "=== exit $?" >> $o/t_b.log ) &
( env $E timeout $PT $t --gtest_filter='-SsimCudaStages.EverySpeedVariantBitIdentical:SsimCudaStages.EverySpeedVariantBitIdenticalRuns:FixtureContract.*' > $o/t_c.log 2>&1; echo "=== exit $?" >> $o/t_c.log ) &
( env $E timeout $PT $t --gtest_filter='FixtureContract.*' > $o/t_d.log 2>&1; echo "=== exit $?" >> $o/t_d.log ) &
( env $E timeout $PT $b/cuda_parity_test --gtest_filter='*EveryTwinHasARow*:*float_ms_ssim*:*float_ssim*' > $o/par.log 2>&1; echo "=== exit $?" >> $o/par.log ) &
( env $E timeout $PT $cs --tool memcheck --leak-check full --error-exitcode 9 $run --backend cuda --frames 2 \
    $FX/odd853/ref.y4m $FX/odd853/dis.y4m float_ms_ssim=enable_lcs=true float_ssim=enable_lcs=true > $o/mem.log 2>&1; echo "=== exit $?" >> $o/mem.log ) &
( env $E timeout $PT $cs --tool racecheck --error-exitcode 9 $run --backend cuda --frames 1 \
    $FX/odd853/ref.y4m $FX/odd853/dis.y4m float_ms_ssim float_ssim=scale=1 > $o/race.log 2>&1; echo "=== exit $?" >> $o/race.log ) &
wait
echo "=== proof done $(el)"
for f in a b c d; do echo "--- test shard $f: $(grep -E '^\[  (PASSED|FAILED) |tests? ran|=== exit' $o/t_$f.log | tr '\n' ' ')"; grep -E "^\[  FAILED|Failure" $o/t_$f.log | head -4; done
grep -E "^contract|^straddle" $o/t_d.log | head -10
grep -cE "all identical to run 0: yes" $o/t_d.log | sed 's/^/repeat lines identical: /'
grep -cE "identical to run 0: no" $o/t_d.log | sed 's/^/repeat lines differing: /'
echo "--- parity: $(grep -E 'PASSED|FAILED|=== exit' $o/par.log | tr '\n' ' ')"
grep -E "^parity" $o/par.log | grep -vc "max |diff| 0$" | sed 's/^/parity rows with a nonzero diff: /'
echo "--- memcheck: $(grep -E 'ERROR SUMMARY|LEAK SUMMARY|=== exit' $o/mem.log | tr '\n' ' ')"
echo "--- racecheck: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|=== exit' $o/race.log | tr '\n' ' ')"
echo "=== (3) throughput again: picked, 33 $(el)"
tput picked_w${BW}s$BS $BW $BS; tput w33s1_3 33 1
echo "=== (4) ncu: first window launch of the 4K K=1 graph, picked and 33 $(el)"
for c in $BW:$BS 33:1; do
  [ $(left) -lt 9 ] && break
  VQX_SSIM_WIN=${c%%:*} VQX_SSIM_STRIP=${c##*:} timeout $(( $(left) < 12 ? $(left) - 1 : 11 )) /usr/local/cuda/bin/ncu --clock-control none -k regex:window_ -c 2 \
    --section SpeedOfLight --section InstructionStats --section WarpStateStats --section LaunchStats \
    $tp --benchmark_filter='BM_CudaThroughput/4k_float_ms_ssim_k1' > $o/ncu_${c%%:*}.txt 2>&1
  echo "--- w$c: $(grep -E '  window_|Duration|Executed Instructions  |Issue Slots Busy|Registers Per|Grid Size|Stall Barrier' $o/ncu_${c%%:*}.txt | sed -E 's/ +/ /g' | cut -c1-90 | tr '\n' ';')"
done
echo "=== done $(el)"
} 2>&1
cat $o/t_*.log | grep -vE '^\[ RUN|^\[       OK' | tail -c 1500000 > $D/tests.log
cat $o/tp_*.txt $o/par.log $o/mem.log $o/race.log $o/ncu_*.txt 2>/dev/null | tail -c 1500000 > $D/other.log
