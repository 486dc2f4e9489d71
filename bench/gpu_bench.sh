#!/usr/bin/env bash
# Wall milliseconds per frame, cpu vs cuda, 1080p and 4K, by the method of seed 000 (finding 9):
# per repetition (t(N) - t(2)) / (N - 2) from whole-process wall times, so start-up (CUDA context,
# allocations, graph capture, file open) cancels; runs interleaved (N and 2, cpu and cuda
# alternate inside each repetition); the median over repetitions is reported.
# Long clips are made by repeating fixture frames (make_long_y4m.py) on tmpfs.
#
# usage: bench/gpu_bench.sh RUNNER FIXTURES_DIR [OUT.md]
#   RUNNER: vqx_run_pair; env: REPS (5), N_1080 (400), N_4K (120), THREADS (nproc),
#   READ_THREADS (4 per input), FEATURE (psnr), WORK (/dev/shm/vqx-bench)
set -euo pipefail
runner=$1
fixtures=$2
out=${3:-/dev/stdout}
here=$(cd "$(dirname "$0")" && pwd)
reps=${REPS:-5}
threads=${THREADS:-$(nproc)}
read_threads=${READ_THREADS:-4}
feature=${FEATURE:-psnr}
work=${WORK:-/dev/shm/vqx-bench}
mkdir -p "$work"
declare -A frames=([band1080]=${N_1080:-400} [uhd4k]=${N_4K:-120})

for pair in band1080 uhd4k; do
  for n in 2 "${frames[$pair]}"; do
    for side in ref dis; do
      f=$work/${pair}_${side}_$n.y4m
      [ -s "$f" ] || python3 "$here/make_long_y4m.py" "$fixtures/$pair/$side.y4m" "$f" "$n"
    done
  done
done

times=$work/times.tsv
: >"$times"
run() {  # backend pair n -> nanoseconds of one whole process
  local s e
  s=$(date +%s%N)
  "$runner" --backend "$1" --threads "$threads" --read-threads "$read_threads" \
    "$work/${2}_ref_$3.y4m" "$work/${2}_dis_$3.y4m" "$feature" >/dev/null || return 1
  e=$(date +%s%N)
  echo $((e - s))
}
for rep in $(seq 1 "$reps"); do
  for pair in band1080 uhd4k; do
    n=${frames[$pair]}
    # Alternate the order each repetition so drift hits both sides alike.
    if [ $((rep % 2)) -eq 1 ]; then order="cpu cuda"; else order="cuda cpu"; fi
    for backend in $order; do
      t2=$(run "$backend" "$pair" 2)
      tn=$(run "$backend" "$pair" "$n")
      printf '%s\t%s\t%s\t%s\t%s\n' "$pair" "$backend" "$n" "$t2" "$tn" >>"$times"
    done
  done
done

python3 - "$times" "$feature" "$threads" "$read_threads" "$reps" >"$out" <<'PY'
import statistics, sys
times, feature, threads, read_threads, reps = sys.argv[1:]
pair_bytes = {"band1080": 2 * 1920 * 1080 * 3 // 2, "uhd4k": 2 * 3840 * 2160 * 3 // 2}
label = {"band1080": "1920x1080 4:2:0 8-bit", "uhd4k": "3840x2160 4:2:0 8-bit"}
rows = {}
for line in open(times):
    pair, backend, n, t2, tn = line.split()
    n, t2, tn = int(n), int(t2), int(tn)
    rows.setdefault((pair, backend), []).append(((tn - t2) / (n - 2) / 1e6, t2 / 1e6, tn / 1e6, n))
print(f"### `{feature}`: wall ms per frame, (t(N) - t(2)) / (N - 2), median of {reps} interleaved runs\n")
print(f"cpu: --threads {threads}; both backends read with {read_threads} pread threads per input.\n")
print("| size | backend | N | ms/frame (median) | min..max | fps | input GB/s | t(2) ms | t(N) ms |")
print("|---|---|---|---|---|---|---|---|---|")
for pair in ("band1080", "uhd4k"):
    for backend in ("cpu", "cuda"):
        r = rows.get((pair, backend))
        if not r:
            continue
        per = [x[0] for x in r]
        m = statistics.median(per)
        print(f"| {label[pair]} | {backend} | {r[0][3]} | {m:.3f} | {min(per):.3f}..{max(per):.3f} | "
              f"{1000 / m:.0f} | {pair_bytes[pair] / (m * 1e6):.1f} | "
              f"{statistics.median(x[1] for x in r):.1f} | {statistics.median(x[2] for x in r):.1f} |")
PY
