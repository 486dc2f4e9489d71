#!/usr/bin/env bash
# msw device round (session 14: float_ms_ssim window kernel). Env from the lead: FX, SHARED, D.
# 1. bits of the new window variants (17+) against the plain twins, and the branch-free
#    division against __ddiv_rn; 2. bench: graph replay and the window kernel alone (eager,
#    no fork) per variant at 1080p and 4K; 3. ncu of the fastest variant's window kernel at 4K.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
b=/dev/shm/msw
mkdir -p $b && tar -xJf "$here/bins.tar.xz" -C $b
export LD_LIBRARY_PATH=$b${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} VQX_FIXTURES=$FX VQX_REQUIRE_FIXTURES=1
log=$D/log.txt
t0=$(date +%s)
st() { echo "--- $(( $(date +%s) - t0 )) s: $*" | tee -a $log; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 | tee -a $log

st "bits: window variants 17+, division"
timeout 36 $b/float_ms_ssim_cuda_test --gtest_filter='*EverySpeedVariantBitIdenticalRuns*:*FastDivision*' >$b/t1.log 2>&1
echo "=== tests exit $?" | tee -a $log
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|^\[       OK|^division" $b/t1.log | head -8 | tee -a $log
bad=$(grep -oE "variant w[0-9]+ d[0-9]+" $b/t1.log | sort -u | tr '\n' ' '); echo "failing variants: ${bad:-none}" | tee -a $log
grep -E "mismatch|Failure" $b/t1.log | head -6 | tee -a $log

st "bench (ms: graph = frame replayed; windows = window kernel alone, eager)"
for res in 4k 1080p; do
  timeout $([ $res = 4k ] && echo 16 || echo 10) $b/float_ms_ssim_cuda_bench --benchmark_filter="${res}_w(1[6-9]|2[0-9]|3[0-9])d15r1" \
    --benchmark_counters_tabular=true --benchmark_out=$b/bench_$res.json --benchmark_out_format=json >$b/bench_$res.txt 2>&1
  echo "bench $res exit $?" | tee -a $log
done
python3 - $b/bench_4k.json $b/bench_1080p.json <<'PY' | tee -a $log
import json, re, sys
rows = []
for f in sys.argv[1:]:
    try: rows += json.load(open(f))["benchmarks"]
    except Exception as e: print("bench unreadable", f, e)
for r in rows:
    m = re.search(r"/(1080p|4k)_(\w+?)/", r["name"])
    if m and "graph_ms" in r:
        print(f"{m.group(2):16s} {m.group(1):5s} graph {r['graph_ms']:.4f} pyr {r['pyramid_ms']:.4f} win {r['windows_ms']:.4f} trees {r['trees_ms']:.4f} score {r['score']:.9f}")
PY
best=$(BAD="$bad" python3 - $b/bench_4k.json <<'PY'
import json, os, re, sys
bad = set(re.findall(r"w(\d+) d", os.environ.get("BAD", "")))
best = None
try:
    for r in json.load(open(sys.argv[1]))["benchmarks"]:
        m = re.search(r"/4k_w(\d+)d15r1/", r["name"])
        if m and m.group(1) not in bad and m.group(1) != "16" and (best is None or r["windows_ms"] < best[0]):
            best = (r["windows_ms"], m.group(1))
except Exception: pass
print(best[1] if best else 19)
PY
)
echo "fastest window kernel at 4K: w$best" | tee -a $log

st "ncu: window kernel at 4K, w$best then w$other"
other=18; [ "$best" = 18 ] && other=25
for w in $best $other; do
  [ $(( $(date +%s) - t0 )) -gt 64 ] && { echo "skip ncu w$w (time)" | tee -a $log; continue; }
  timeout 11 /usr/local/cuda/bin/ncu --clock-control none -k regex:'window' -c 1 --page raw \
    --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis --section LaunchStats \
    --section InstructionStats $b/float_ms_ssim_cuda_bench --benchmark_filter="4k_w${w}d15r1/" >$b/ncu$w.log 2>&1
  echo "ncu w$w exit $?" | tee -a $log
  grep -E "Kernel|window|gpu__time_duration.sum|inst_executed.sum |issue_active.avg.pct|pipe_(alu|fma|fmaheavy|fp64|xu|lsu|shared)[a-z_]*cycles_active.avg.pct|issue_stalled_(not_selected|wait|barrier|math_pipe_throttle|long_scoreboard|short_scoreboard|dispatch_stall|mio_throttle|no_instruction|branch_resolving|selected|lg_throttle)_per_issue_active|registers_per_thread|occupancy_limit|warps_active.avg.pct|==ERROR" \
    $b/ncu$w.log | grep -vE " 0$" | head -60 | tee -a $log
done
st done
