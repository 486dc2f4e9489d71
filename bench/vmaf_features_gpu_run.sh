#!/usr/bin/env bash
# One device run for the CUDA twins of integer vif, adm and motion (issue 11), on an H200:
# gpu tests (parity on every fixture, goldens, repeat), compute-sanitizer memcheck + racecheck on
# short inputs, --profile stage tables at 1080p and 4K, and wall ms/frame (cpu vs cuda).
# Prebuilt binaries (stripped, with libfmt) in $BIN; fixtures as .carry/fixtures.tar.xz.
#   usage (repo root of the device copy): BIN=.carry/gpu_vmaf bash $BIN/vmaf_features_gpu_run.sh
set -uo pipefail
bin=$(cd "${BIN:-.carry/gpu_vmaf}" && pwd)
out=${OUT:-/tmp/vqx-out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fx=/dev/shm/vqx-fixtures
mkdir -p "$fx"
tar -xJf .carry/fixtures.tar.xz -C "$fx"
export VQX_FIXTURES=$fx VQX_REQUIRE_FIXTURES=1
# Goldens (vmaf_v0.6.1 / vmaf_4k_v0.6.1 of every pair) carried beside the binaries.
[ -d "$bin/shared/golden" ] && export VQX_SHARED_DIR=$bin/shared
run=$bin/vqx_run_pair
feats="vif adm motion"
t0=$(date +%s)
stamp() { echo "--- $(( $(date +%s) - t0 )) s: $*"; }

{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.mem --format=csv; nproc; } >"$out/env.log" 2>&1

# 1. long clips and --profile
w=/dev/shm/vqx-bench
mkdir -p $w
N1=${N_1080:-300}; N4=${N_4K:-100}
for pair in band1080:$N1 uhd4k:$N4; do
  p=${pair%%:*}; n=${pair##*:}
  for m in 2 $n; do for side in ref dis; do
    python3 "$bin/make_long_y4m.py" "$fx/$p/$side.y4m" "$w/${p}_${side}_$m.y4m" "$m"
  done; done
done
{
  stamp profile
  for pair in band1080:$N1 uhd4k:$N4; do
    p=${pair%%:*}; n=${pair##*:}
    echo "=== $p $n frames --profile, vif adm motion"
    "$run" --profile --read-threads 8 "$w/${p}_ref_$n.y4m" "$w/${p}_dis_$n.y4m" $feats 2>&1
    echo "=== $p $n frames --profile, vif adm motion psnr"
    "$run" --profile --read-threads 8 "$w/${p}_ref_$n.y4m" "$w/${p}_dis_$n.y4m" $feats psnr 2>&1 | tail -3
  done
  stamp profile done
} >"$out/profile.log" 2>&1
cat "$out/profile.log"

# 2. tests
{
  stamp tests
  timeout 100 "$bin/vmaf_features_cuda_test" >"$out/vmaf_features_cuda_test.log" 2>&1
  rc=$?; grep -E "FAILED|PASSED|Failure" "$out/vmaf_features_cuda_test.log" | head -40
  echo "=== vmaf_features_cuda_test exit $rc"
  timeout 90 "$bin/cuda_parity_test" --gtest_filter='*vif*:*adm*:*motion*:*EveryTwin*' 2>&1 |
    grep -E "^parity|OK \]|FAILED|PASSED|Failure|cpu .*cuda" | grep -v "^\[       OK" | head -300
  echo "=== cuda_parity_test exit ${PIPESTATUS[0]}"
  stamp tests done
} >"$out/tests.log" 2>&1
grep -E "^=== |PASSED|FAILED" "$out/tests.log" | head -30

# 3. compute-sanitizer
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
{
  for job in memcheck:odd853:3 memcheck:hbd720:3 racecheck:odd853:2; do
    IFS=: read -r tool pair n <<<"$job"
    {
      stamp "$tool $pair $n frames"
      timeout 50 "$cs" --tool $tool --error-exitcode 9 "$run" --frames $n "$fx/$pair/ref.y4m" \
        "$fx/$pair/dis.y4m" vif adm motion=motion_five_frame_window=true 2>&1 | tail -4
      echo "=== exit ${PIPESTATUS[0]}"
    }
  done
} >"$out/sanitizer.log" 2>&1
grep -E "^=== |ERROR SUMMARY|RACECHECK SUMMARY|HAZARD" "$out/sanitizer.log" | head -20

# 4. wall ms/frame, cpu vs cuda
{
  stamp bench
  printf 'pair\tbackend\tN\tt2_ns\ttN_ns\n'
  for rep in $(seq 1 ${REPS:-2}); do
    for pair in band1080:$N1 uhd4k:$N4; do
      p=${pair%%:*}; n=${pair##*:}
      for backend in cuda cpu; do
        nn=$n; [ $backend = cpu ] && nn=$(( n / 4 ))
        [ $backend = cpu ] && [ ! -s "$w/${p}_ref_$nn.y4m" ] && for side in ref dis; do
          python3 "$bin/make_long_y4m.py" "$fx/$p/$side.y4m" "$w/${p}_${side}_$nn.y4m" "$nn"; done
        s=$(date +%s%N); "$run" --backend $backend --threads 16 --read-threads 8 "$w/${p}_ref_2.y4m" "$w/${p}_dis_2.y4m" $feats >/dev/null; e=$(date +%s%N); t2=$((e - s))
        s=$(date +%s%N); "$run" --backend $backend --threads 16 --read-threads 8 "$w/${p}_ref_$nn.y4m" "$w/${p}_dis_$nn.y4m" $feats >/dev/null; e=$(date +%s%N); tn=$((e - s))
        printf '%s\t%s\t%s\t%s\t%s\n' $p $backend $nn $t2 $tn
      done
    done
  done
  stamp bench done
} >"$out/bench.tsv" 2>&1
python3 - "$out/bench.tsv" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) != 5 or f[0] in ("pair", "---"): continue
    p, b, n, t2, tn = f[0], f[1], int(f[2]), int(f[3]), int(f[4])
    rows.setdefault((p, b), []).append((tn - t2) / (n - 2) / 1e6)
for (p, b), v in sorted(rows.items()):
    m = statistics.median(v)
    print(f"wall {p} {b}: {m:.3f} ms/frame ({1000/m:.0f} fps), runs {', '.join(f'{x:.3f}' for x in v)}")
PY
stamp all done
