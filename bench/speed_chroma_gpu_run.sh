#!/usr/bin/env bash
# One device run for the CUDA twin of speed_chroma (issue 11) on an H200, about 2-3 minutes:
# tests (host twin, three v1 configurations on every fixture vs CPU and goldens, synthetic
# options, repeats, refusals, the eight v1 models end to end on the GPU), the parity rows,
# compute-sanitizer memcheck + racecheck on short inputs, --profile stage tables at 1080p and 4K,
# and wall ms/frame (speed_chroma alone cpu vs cuda; the v1 3d0h feature set on cuda).
# Prebuilt stripped binaries with libfmt and the needed goldens in $BIN.
#   usage (repo root of the device copy): BIN=.carry/gpu_speed bash .carry/gpu_speed/speed_chroma_gpu_run.sh
set -uo pipefail
bin=$(cd "${BIN:-.carry/gpu_speed}" && pwd)
out=${OUT:-/tmp/vqx-out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fx=/dev/shm/vqx-fixtures
mkdir -p "$fx"
tar -xJf .carry/fixtures.tar.xz -C "$fx"
export VQX_FIXTURES=$fx VQX_REQUIRE_FIXTURES=1 VQX_SHARED_DIR=$bin/shared
run=$bin/vqx_run_pair
v1="speed_chroma=speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45"
v1ps="$v1:speed_prescale=0.6:speed_prescale_method=bilinear"
# The feature set of vmaf_v1.0.16_3d0h (tests: VmafV1Cuda.EveryRequestedExtractorHasACudaTwin).
model="cambi=cambi_high_res_speedup=1080:cambi_max_val=17:cambi_vis_lum_threshold=0.06 $v1
adm=adm_csf_mode=2:adm_dlm_weight=0.7:adm_enhn_gain_limit=1:adm_min_val=0.5:adm_noise_weight=0.02
motion=motion_max_val=18"
t0=$(date +%s)
stamp() { echo "--- $(( $(date +%s) - t0 )) s: $*"; }
{ nvidia-smi -L; nproc; } >"$out/env.log" 2>&1

# 1. tests
{
  stamp tests
  timeout 70 "$bin/speed_chroma_cuda_test" >"$out/speed_chroma_cuda_test.log" 2>&1
  echo "=== speed_chroma_cuda_test exit $?"
  grep -E "^\[  (PASSED|FAILED)|^\[  FAILED|Failure|v1 cuda" "$out/speed_chroma_cuda_test.log" | head -80
  timeout 40 "$bin/cuda_parity_test" --gtest_filter='*speed_chroma*:*EveryTwin*' >"$out/parity.log" 2>&1
  echo "=== cuda_parity_test exit $?"
  grep -E "^parity|^\[  PASSED|^\[  FAILED|Failure" "$out/parity.log" | head -120
  stamp tests done
} >"$out/tests.log" 2>&1

# 2. compute-sanitizer
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
{
  for job in memcheck:odd853:3 memcheck:hbd720:2 racecheck:odd853:2; do
    IFS=: read -r tool pair n <<<"$job"
    stamp "$tool $pair $n frames"
    timeout 25 "$cs" --tool $tool --error-exitcode 9 "$run" --frames $n "$fx/$pair/ref.y4m" \
      "$fx/$pair/dis.y4m" "$v1" "$v1ps" 2>&1 | tail -4
    echo "=== exit ${PIPESTATUS[0]}"
  done
} >"$out/sanitizer.log" 2>&1

# 3. --profile and wall ms/frame on long clips
w=/dev/shm/vqx-bench
mkdir -p $w
N1=${N_1080:-200}; N4=${N_4K:-60}
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
    echo "=== $p $n frames --profile, speed_chroma v1 + v1 ps0.6"
    timeout 20 "$run" --profile --read-threads 8 "$w/${p}_ref_$n.y4m" "$w/${p}_dis_$n.y4m" "$v1" "$v1ps" 2>&1
    echo "=== $p $n frames --profile, vmaf_v1.0.16_3d0h features"
    timeout 20 "$run" --profile --read-threads 8 "$w/${p}_ref_$n.y4m" "$w/${p}_dis_$n.y4m" $model 2>&1
  done
} >"$out/profile.log" 2>&1
{
  printf 'pair\tcase\tN\tt2_ns\ttN_ns\n'
  for pair in band1080:$N1 uhd4k:$N4; do
    p=${pair%%:*}; n=${pair##*:}
    for c in speed_cuda speed_cpu v1_cuda; do
      nn=$n; args=("$v1"); be=cuda
      [ $c = speed_cpu ] && be=cpu
      [ $c = v1_cuda ] && args=($model)
      s=$(date +%s%N); timeout 20 "$run" --backend $be --threads 16 --read-threads 8 "$w/${p}_ref_2.y4m" "$w/${p}_dis_2.y4m" "${args[@]}" >/dev/null; e=$(date +%s%N); t2=$((e - s))
      s=$(date +%s%N); timeout 30 "$run" --backend $be --threads 16 --read-threads 8 "$w/${p}_ref_$nn.y4m" "$w/${p}_dis_$nn.y4m" "${args[@]}" >/dev/null; e=$(date +%s%N); tn=$((e - s))
      printf '%s\t%s\t%s\t%s\t%s\n' $p $c $nn $t2 $tn
    done
  done
  stamp bench done
} >"$out/bench.tsv" 2>&1
python3 - "$out/bench.tsv" <<'PY' >"$out/bench.txt"
import sys
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) != 5 or f[0] == "pair": continue
    p, c, n, t2, tn = f[0], f[1], int(f[2]), int(f[3]), int(f[4])
    ms = (tn - t2) / (n - 2) / 1e6
    print(f"wall {p} {c}: {ms:.3f} ms/frame ({1000/ms:.0f} fps)")
PY
stamp all done >>"$out/bench.txt"
cat "$out/tests.log" | grep -E "^===|PASSED|FAILED" ; grep -E "^===|ERROR SUMMARY|RACECHECK SUMMARY" "$out/sanitizer.log"; cat "$out/bench.txt"
