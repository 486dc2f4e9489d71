#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzz build (VQX_BUILD_FUZZ=ON) for a bounded time, from a copy
# of its seed corpus (tests/fuzz/corpus/<target>/), several at once. A crash, a leak, undefined
# behaviour or a timeout stops with the reproducer saved under the output folder; fix it and add
# the reproducer to a regression test.
#   usage: scripts/fuzz.sh BUILD_DIR [SECONDS_PER_TARGET (60)] [JOBS (nproc)] [OUT_DIR]
# Prints one line per target: "fuzz: TARGET SECONDS s EXECS runs CORPUS inputs: ok|FAILED".
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:?usage: scripts/fuzz.sh BUILD_DIR [SECONDS] [JOBS] [OUT_DIR]}
seconds=${2:-60}
jobs=${3:-$(nproc)}
out=${4:-$(mktemp -d)}
mkdir -p "$out"

# Every target has a seed corpus and is built: none is left out without a word.
targets=()
for src in "$root"/tests/fuzz/*_fuzz.cpp; do
  name=$(basename "$src" .cpp)
  [[ -d $root/tests/fuzz/corpus/$name ]] || { echo "fuzz: $name has no tests/fuzz/corpus/$name/" >&2; exit 1; }
  [[ -x $build/tests/fuzz/$name ]] || { echo "fuzz: $name is not built in $build" >&2; exit 1; }
  targets+=("$name")
done

run_one() {
  local name=$1 build=$2 seconds=$3 out=$4 root=$5
  local corpus=$out/$name.corpus log=$out/$name.log
  rm -rf "$corpus" && mkdir -p "$corpus" && cp "$root/tests/fuzz/corpus/$name/"* "$corpus/"
  local status=ok
  "$build/tests/fuzz/$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$out/$name-" "$corpus" >"$log" 2>&1 || status=FAILED
  local execs inputs
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  inputs=$(find "$corpus" -type f | wc -l)
  echo "fuzz: $name $seconds s ${execs:-0} runs $inputs inputs: $status"
  if [[ $status != ok ]]; then
    grep -E "ERROR|SUMMARY|runtime error|Test unit written" "$log" | head -20 >&2 || true
    # The reproducer in the log too (base64), for a run whose files are gone, such as CI's.
    local artifact
    for artifact in "$out/$name"-*; do
      [[ -f $artifact ]] || continue
      echo "fuzz: $name reproducer $(basename "$artifact"), base64: $(head -c 4096 "$artifact" | base64 -w0)" >&2
    done
    return 1
  fi
}
export -f run_one
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one "$@"' _ {} "$build" "$seconds" "$out" "$root"
