#!/usr/bin/env bash
# Makes the small compressed inputs the decoding tests read, with Debian's ffmpeg, into OUT_DIR
# (a ctest fixture step; files already made are kept). Each encode FILE comes with FILE.y4m, what
# `ffmpeg -i FILE -f yuv4mpegpipe -strict -1 -pix_fmt <its native format> -` gives: the exactness
# contract compares vqx's scores of FILE with its scores of FILE.y4m.
#   usage: make_encodes.sh OUT_DIR
# Encodes of the fixture pairs need $VQX_FIXTURES (skipped without it); the synthetic ones
# (lavfi test sources: pipes, scaling, damaged streams) are always made.
set -euo pipefail
out=${1:?usage: make_encodes.sh OUT_DIR}
fixtures=${VQX_FIXTURES:-}
mkdir -p "$out"
cd "$out"

ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
x265_quiet=(-x265-params log-level=error)

# FILE.y4m: the stream as ffmpeg decodes it, in its native pixel format.
decode_to_y4m() {
  local file=$1 pix_fmt
  pix_fmt=$(ffprobe -v error -select_streams v:0 -show_entries stream=pix_fmt -of default=nw=1:nk=1 "$file" | sed -n 1p)
  ff -i "$file" -f yuv4mpegpipe -strict -1 -pix_fmt "$pix_fmt" - >"$file.y4m.part"
  mv "$file.y4m.part" "$file.y4m"
}

# make OUTPUT ARGS...: runs ffmpeg once unless OUTPUT exists already.
make() {
  local file=$1
  shift
  [[ -s $file ]] && return 0
  ff "$@" "$file.part.${file##*.}" && mv "$file.part.${file##*.}" "$file"
}

# encode OUTPUT ARGS...: make, then FILE.y4m beside it.
encode() {
  make "$@"
  [[ -s $1.y4m ]] || decode_to_y4m "$1"
}

# Fixture encodes: the first frames of a pair's distorted (or reference) clip, fewer for the larger.
if [[ -n $fixtures && -s $fixtures/n576/dis.y4m ]]; then
  n576=(-i "$fixtures/n576/dis.y4m" -frames:v 8)
  hbd=(-i "$fixtures/hbd720/dis.y4m" -frames:v 4)
  odd=(-i "$fixtures/odd853/dis.y4m" -frames:v 5)
  encode n576_h264.mp4 "${n576[@]}" -c:v libx264 -preset veryfast -crf 32
  encode n576_h264.h264 "${n576[@]}" -c:v libx264 -preset veryfast -crf 30 -f h264
  encode n576_ref_h264.mkv -i "$fixtures/n576/ref.y4m" -frames:v 8 -c:v libx264 -preset veryfast -crf 14
  encode n576_hevc.mkv "${n576[@]}" -c:v libx265 -preset ultrafast -crf 32 "${x265_quiet[@]}"
  encode n576_av1.ivf "${n576[@]}" -c:v libsvtav1 -preset 12 -crf 45 -svtav1-params lp=2
  encode n576_av1.obu -i n576_av1.ivf -c copy -f obu
  encode n576_vp9.webm "${n576[@]}" -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -b:v 300k
  encode hbd720_hevc10.mp4 "${hbd[@]}" -c:v libx265 -preset ultrafast -crf 30 -pix_fmt yuv420p10le "${x265_quiet[@]}"
  encode hbd720_av1_10.ivf "${hbd[@]}" -c:v libsvtav1 -preset 12 -crf 45 -svtav1-params lp=2
  encode hbd720_vp9_10.webm "${hbd[@]}" -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -b:v 600k -pix_fmt yuv420p10le
  encode odd853_h264_444.ts "${odd[@]}" -c:v libx264 -preset veryfast -crf 30 -pix_fmt yuv444p
  encode odd853_hevc444.hevc "${odd[@]}" -c:v libx265 -preset ultrafast -crf 30 -pix_fmt yuv444p "${x265_quiet[@]}" -f hevc
fi 2> >(grep -v '^Svt\[' >&2)

# Synthetic encodes: 12 frames of lavfi's testsrc2, single-threaded encoders (deterministic files).
syn=(-f lavfi -i testsrc2=size=160x96:rate=25:duration=0.48)
out=(-frames:v 12 -threads 1)
x264=(-c:v libx264 -preset veryfast -g 6 -x264-params threads=1)
{
  encode syn_h264.mp4 "${syn[@]}" "${out[@]}" "${x264[@]}"
  encode syn_faststart.mp4 "${syn[@]}" "${out[@]}" "${x264[@]}" -movflags +faststart
  encode syn_h264.mkv "${syn[@]}" "${out[@]}" "${x264[@]}" -color_range tv
  make syn_fullrange.mkv "${syn[@]}" "${out[@]}" "${x264[@]}" -color_range pc
  encode syn_h264.h264 "${syn[@]}" "${out[@]}" "${x264[@]}" -f h264
  encode syn_h264.ts "${syn[@]}" "${out[@]}" "${x264[@]}"
  encode syn_hevc.hevc "${syn[@]}" "${out[@]}" -c:v libx265 -preset ultrafast "${x265_quiet[@]}" -f hevc
  encode syn_av1.ivf "${syn[@]}" "${out[@]}" -c:v libsvtav1 -preset 12 -svtav1-params lp=1
  encode syn_vp9.webm "${syn[@]}" "${out[@]}" -c:v libvpx-vp9 -deadline realtime -cpu-used 8
  encode syn_short.mkv "${syn[@]}" -frames:v 8 -threads 1 "${x264[@]}"
  # Three streams: video 160x96 (h264), audio, video 96x64 (vp9); FILE.y4m is the first.
  encode syn_multi.mkv "${syn[@]}" -f lavfi -i sine=duration=0.5 -f lavfi -i testsrc=size=96x64:rate=25:duration=0.48 \
    -map 0:v -map 1:a -map 2:v "${out[@]}" -pix_fmt yuv420p "${x264[@]}" -c:v:1 libvpx-vp9 -deadline realtime -c:a flac
  # An MP4 with its index last, too large for libavformat to find the index of from a pipe.
  make syn_moov_last.mp4 -f lavfi -i testsrc2=size=640x360:rate=25:duration=0.48 "${out[@]}" -c:v libx264 \
    -preset ultrafast -qp 0 -x264-params threads=1
  # Refused: a pixel format with alpha, an interlaced stream, audio only.
  make syn_alpha.mkv "${syn[@]}" "${out[@]}" -c:v ffv1 -pix_fmt yuva420p
  make syn_interlaced.mkv "${syn[@]}" "${out[@]}" "${x264[@]}" -flags +ildct+ilme -field_order tt
  make syn_audio.mka -f lavfi -i sine=duration=0.5 -c:a flac
} 2> >(grep -v '^Svt\[' >&2)

# Ladder rungs (2 frames of noisy test pattern) and ffmpeg's scale of each to a larger size, the
# reference of --scale: RUNG.WxH.MODE.y4m.
# rung FILE SIZE PIX_FMT ENCODER...: testsrc (not testsrc2, which rounds odd sizes to even).
rung() {
  local file=$1 size=$2 pix_fmt=$3
  shift 3
  make "$file" -f lavfi -i "testsrc=size=$size:rate=25:duration=0.08,format=$pix_fmt,noise=alls=24:allf=t" \
    -frames:v 2 -threads 1 "$@"
}
scaled() {
  local file=$1 width=$2 height=$3 mode=$4 out pix_fmt
  out=$file.${width}x$height.$mode.y4m
  [[ -s $out ]] && return 0
  pix_fmt=$(ffprobe -v error -select_streams v:0 -show_entries stream=pix_fmt -of default=nw=1:nk=1 "$file" | sed -n 1p)
  ff -i "$file" -vf "scale=$width:$height:flags=$mode+accurate_rnd+bitexact" -f yuv4mpegpipe -strict -1 \
    -pix_fmt "$pix_fmt" - >"$out.part"
  mv "$out.part" "$out"
}
{
  rung rung_720p.mkv 1280x720 yuv420p "${x264[@]}"
  rung rung_540p.mkv 960x540 yuv420p "${x264[@]}"
  rung rung_1080p.mkv 1920x1080 yuv420p "${x264[@]}"
  rung rung_odd.mkv 853x481 yuv420p -c:v ffv1
  rung rung_720p10.mkv 1280x720 yuv420p10le "${x264[@]}"
  rung rung_444p10.mkv 853x481 yuv444p10le "${x264[@]}"
  for mode in bicubic bilinear lanczos spline neighbor; do scaled rung_720p.mkv 1920 1080 $mode; done
  scaled rung_540p.mkv 1920 1080 bicubic
  scaled rung_1080p.mkv 3840 2160 bicubic
  scaled rung_odd.mkv 1920 1080 bicubic
  scaled rung_odd.mkv 1279 719 lanczos
  scaled rung_720p10.mkv 1920 1080 bicubic
  scaled rung_720p10.mkv 1920 1080 spline
  scaled rung_444p10.mkv 1280 720 bicubic
}

touch encodes.done
