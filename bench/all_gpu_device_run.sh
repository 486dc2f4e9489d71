#!/usr/bin/env bash
# The whole CUDA backend in one device call: every gpu-labelled test binary, CLI parity (CPU vs
# CUDA JSON at %.17g) for VMAF models and the seed metrics, compute-sanitizer memcheck and
# racecheck on the CLI with every CUDA metric at once (metrics side by side, two frames of each in
# flight), --profile of all metrics together, device throughput with 1/2/4 frames in flight
# (cuda_throughput_bench), and CLI ms/frame per engine schedule on long clips.
# Carried: $BIN/bins.tar.xz (stripped binaries + libfmt, libpng), $BIN/shared.tar.xz (spec +
# goldens), .carry/fixtures.tar.xz. Logs in $OUT.
#   usage (repo root of the device copy): BIN=.carry/final bash bench/all_gpu_device_run.sh
#   SECTIONS="1 2" or "3 4 5" runs a part (each part stays within one 10-minute device call);
#   section 6 = --profile of each seed metric alone; QUICK=1 shortens section 2.
set -uo pipefail
root=$PWD
bin=/dev/shm/vqx-bin
out=${OUT:-/tmp/vqx-out}
mkdir -p "$out" "$bin" /dev/shm/vqx-shared /dev/shm/fx
tar -xJf "${BIN:-.carry/final}/bins.tar.xz" -C "$bin"
tar -xJf "${BIN:-.carry/final}/shared.tar.xz" -C /dev/shm/vqx-shared
tar -xJf .carry/fixtures.tar.xz -C /dev/shm/fx
export LD_LIBRARY_PATH=$bin VQX_FIXTURES=/dev/shm/fx VQX_REQUIRE_FIXTURES=1 VQX_SHARED_DIR=/dev/shm/vqx-shared
fx=/dev/shm/fx
sections=" ${SECTIONS:-1 2 3 4 5} "
want() { [[ $sections == *" $1 "* ]]; }
t0=$(date +%s)
stamp() { echo "--- $(( $(date +%s) - t0 )) s: $*"; }

{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; } >"$out/env.log" 2>&1

# 1. every gpu test binary, the parity table first
want 1 && {
  for t in "$bin"/cuda_parity_test $(ls "$bin"/*_test | grep -v cuda_parity_test); do
    stamp "$(basename "$t")"
    timeout 150 "$t" 2>&1 | grep -E "^\[  (PASSED|FAILED) \]|^\[==========\]|FAILED|max \|diff\||identical|differ" | tail -40
    echo "exit ${PIPESTATUS[0]}"
  done
} >"$out/tests.log" 2>&1
stamp "tests done"

# 2. CLI parity: the same JSON (but version/fps) from --backend cpu and --backend cuda
cli() { "$bin/vqx" -r "$fx/$1/ref.y4m" -d "$fx/$1/dis.y4m" -q --json --precision max --threads 16 "${@:2}"; }
want 2 && {
  for pair in n576 band1080 odd853 hbd720 uhd4k; do
    arg_sets=("-m version=vmaf_v0.6.1" "-m version=vmaf_4k_v0.6.1" "-m version=vmaf_v1.0.16_3d0h"
              "-m version=vmaf_v1.0.16_hfr_5d0h" "-m version=vmaf_v1.0.16_3d0h_2160"
              "-n --feature psnr --feature float_ms_ssim --feature float_ssim --feature cambi=full_ref=true")
    # QUICK=1: VMAF v0.6.1 and the seed metrics only (for runs that changed no VMAF code)
    [ "${QUICK:-0}" = 1 ] && arg_sets=("${arg_sets[0]}" "${arg_sets[5]}")
    for args in "${arg_sets[@]}"; do
      cli $pair $args --backend cpu -o /dev/shm/cpu.json
      cli $pair $args --backend cuda -o /dev/shm/cuda.json
      if cmp -s <(tail -n +4 /dev/shm/cpu.json) <(tail -n +4 /dev/shm/cuda.json); then r=identical; else r=DIFFERENT; fi
      echo "$pair [$args]: $r"
    done
  done
} >"$out/cli_parity.log" 2>&1
stamp "cli parity done"

# 3. sanitizers: every CUDA metric in one run, side by side, two frames of each in flight
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
all="--feature psnr --feature ssimulacra2 --feature float_ms_ssim --feature float_ssim --feature cambi=full_ref=true"
want 3 && {
  for tool in memcheck racecheck; do
    stamp "$tool odd853"
    "$cs" --tool $tool --error-exitcode 9 "$bin/vqx" -r "$fx/odd853/ref.y4m" -d "$fx/odd853/dis.y4m" -q \
      --backend cuda --frame_cnt 3 --gpu_frames 2 -m version=vmaf_v1.0.16_3d0h --feature vif $all -o /dev/null 2>&1 | tail -3
    echo "exit ${PIPESTATUS[0]}"
  done
} >"$out/sanitizer.log" 2>&1
stamp "sanitizers done"

# 4. device throughput (one uploaded pair scored 96 times; 1, 2, 4 frames in flight)
want 4 && timeout 150 "$bin/cuda_throughput_bench" --benchmark_counters_tabular=true >"$out/throughput.log" 2>&1
stamp "throughput done"

# 5. profile (single frame at a time, per stage) and CLI ms/frame per schedule, on longer clips
want 5 && {
  for spec in band1080:240 uhd4k:96; do
    p=${spec%%:*}; n=${spec##*:}
    for side in ref dis; do python3 "$root/bench/make_long_y4m.py" "$fx/$p/$side.y4m" "/dev/shm/${p}_$side.y4m" "$n"; done
    # One untimed run first: the first CLI run on a fresh clip measured up to 2x slower (session 16,
    # bench/results/session16_final/end_to_end.log), which skewed whichever configuration ran first.
    "$bin/vqx" -r /dev/shm/${p}_ref.y4m -d /dev/shm/${p}_dis.y4m -q -n --feature psnr --backend cuda -o /dev/null
    stamp "profile $p x$n: vmaf v0.6.1 + ssimulacra2 + float_ms_ssim + cambi"
    "$bin/vqx" -r /dev/shm/${p}_ref.y4m -d /dev/shm/${p}_dis.y4m -q --backend cuda --profile \
      --feature ssimulacra2 --feature float_ms_ssim --feature cambi -o /dev/null 2>&1
    for feats in "-n --feature ssimulacra2" "-n --feature cambi" "-n --feature float_ms_ssim" \
                 "-n --feature ssimulacra2 --feature float_ms_ssim --feature cambi" \
                 "--feature ssimulacra2 --feature float_ms_ssim --feature cambi" ""; do
      line="$p x$n [${feats:-vmaf v0.6.1}] CLI ms/frame (JSON fps):"
      for mode in serial auto f4 cpu; do
        env=""; extra="--backend cuda"
        case $mode in serial) env=VQX_CUDA_METRIC_STREAMS=0;; f1) extra="$extra --gpu_frames 1";;
                      f2) extra="$extra --gpu_frames 2";; f4) extra="$extra --gpu_frames 4";; cpu) extra="--backend cpu";; esac
        [ $mode = cpu ] && [ $p = uhd4k ] && continue
        env $env "$bin/vqx" -r /dev/shm/${p}_ref.y4m -d /dev/shm/${p}_dis.y4m -q --threads 16 $feats $extra \
          --frame_cnt $([ $mode = cpu ] && echo 24 || echo $n) --json -o /dev/shm/o.json || echo FAIL
        line="$line $mode $(python3 -c "import json; print(f'{1000/json.load(open(\"/dev/shm/o.json\"))[\"fps\"]:.3f}')")"
      done
      echo "$line"
    done
    rm -f /dev/shm/${p}_*.y4m
  done
} >"$out/profile.log" 2>&1
# 6. --profile per metric alone (one frame at a time, per-stage device time, peak memory)
want 6 && {
  for p in band1080 uhd4k; do
    for f in ssimulacra2 float_ms_ssim float_ssim cambi; do
      stamp "profile $p $f"
      "$bin/vqx" -r "$fx/$p/ref.y4m" -d "$fx/$p/dis.y4m" -q -n --backend cuda --profile --feature $f -o /dev/null 2>&1 \
        | grep -vE "^vqx profile|^  stage"
    done
  done
} >"$out/profile_metrics.log" 2>&1
stamp done
want 1 && grep -E "^--- |^exit|PASSED|FAILED" "$out/tests.log" | head -60
want 2 && { grep -c identical "$out/cli_parity.log"; grep DIFFERENT "$out/cli_parity.log"; }
want 3 && grep -E "exit|ERROR SUMMARY|HAZARD" "$out/sanitizer.log" | head -20
want 4 && grep BM_ "$out/throughput.log" | cut -c1-150
want 6 && grep -E "^---|ssimulacra2|ms_ssim|float_ssim|cambi|peak" "$out/profile_metrics.log" | head -60
want 5 && grep -E "CLI ms|^  [a-z]|wall|peak" "$out/profile.log" | head -70
