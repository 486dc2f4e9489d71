#!/usr/bin/env bash
# CPU cost per frame of each metric through the CLI (Y4M reading included), as the reference
# figures in shared/golden/README.md were taken: process CPU (user+sys) and wall per frame,
# minimum of REPS runs, for --threads 1 and 2. Writes a markdown table to stdout.
#   usage: bench/cpu_table.sh [VQX] [FIXTURES]     (defaults: build/vqx, $VQX_FIXTURES)
set -euo pipefail
vqx=${1:-build/vqx}
fx=${2:-${VQX_FIXTURES:-/var/cache/vqx-fixtures}}
reps=${REPS:-3}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
declare -A frames=([band1080]=12 [uhd4k]=6)
configs=("-m version=vmaf_v0.6.1" "-m version=vmaf_v1.0.16_3d0h" "-n --feature ssimulacra2"
         "-n --feature float_ms_ssim" "-n --feature float_ssim" "-n --feature cambi" "-n --feature psnr")
echo "| features | clip | threads | CPU ms/frame | wall ms/frame |"
echo "|---|---|---|---|---|"
for config in "${configs[@]}"; do
  for pair in band1080 uhd4k; do
    for threads in 1 2; do
      best_cpu=; best_wall=
      for ((r = 0; r < reps; r++)); do
        /usr/bin/time -o "$tmp" -f "%U %S %e" "$vqx" -r "$fx/$pair/ref.y4m" -d "$fx/$pair/dis.y4m" \
          $config --threads $threads -q -o /dev/null 2>/dev/null
        read -r u s e <"$tmp"
        cpu=$(python3 -c "print(($u+$s)*1000/${frames[$pair]})")
        wall=$(python3 -c "print($e*1000/${frames[$pair]})")
        [[ -z $best_cpu ]] || (( $(python3 -c "print(int($cpu < $best_cpu))") )) && best_cpu=$cpu
        [[ -z $best_wall ]] || (( $(python3 -c "print(int($wall < $best_wall))") )) && best_wall=$wall
      done
      printf '| %s | %s | %s | %.0f | %.0f |\n' "$config" "$pair" "$threads" "$best_cpu" "$best_wall"
    done
  done
done
