#!/usr/bin/env bash
# The clips of decode_bench and bench/run.py's decode section: the band1080 and uhd4k fixture
# pairs looped to N frames and encoded with Debian's ffmpeg as an encoding ladder would: H.264
# (libx264), HEVC (libx265) and AV1 (libsvtav1), reference at high quality, distorted at a
# typical rate. Clips already made are kept. The speed figures need only the compressed files: the
# Y4M side of the comparison is the fixture itself, looped (bench/run.py), and exactness is the
# tests' business (tests/encodes).
#   usage: bench/make_decode_clips.sh FIXTURES_DIR OUT_DIR
#   env: N_1080 (240), N_4K (96)
set -euo pipefail
fixtures=$1
out=$2
mkdir -p "$out"
cd "$out"
declare -A frames=([band1080]=${N_1080:-240} [uhd4k]=${N_4K:-96})
declare -A label=([band1080]=1080p [uhd4k]=4k)
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
for pair in band1080 uhd4k; do
  for side in ref dis; do
    source=(-stream_loop -1 -i "$fixtures/$pair/$side.y4m" -frames:v "${frames[$pair]}")
    if [[ $side == ref ]]; then x264q=16 x265q=18 av1q=20; else x264q=28 x265q=30 av1q=40; fi
    for codec in h264 hevc av1; do
      clip=${codec}_${label[$pair]}_$side.mkv
      [[ -s $clip ]] && continue
      case $codec in
        h264) ff "${source[@]}" -c:v libx264 -preset medium -crf $x264q "$clip.part.mkv" ;;
        hevc) ff "${source[@]}" -c:v libx265 -preset fast -crf $x265q -x265-params log-level=error "$clip.part.mkv" ;;
        av1) ff "${source[@]}" -c:v libsvtav1 -preset 8 -crf $av1q "$clip.part.mkv" 2>/dev/null ;;
      esac
      mv "$clip.part.mkv" "$clip"
    done
  done
done
echo "clips in $out"
