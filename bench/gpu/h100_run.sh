#!/usr/bin/env bash
# Runs every prepared GPU check on the device machine, in one call (bench/gpu/prepare.py made the
# cases on a machine without a GPU; the device tool carries bench/gpu/cases):
#
#   bash bench/gpu/h100_run.sh            # results under $OUT (the device tool's folder)
#
# Writes $OUT/gpu.txt (the card and its clocks as found), $OUT/log.txt (one line per case) and
# $OUT/res.tgz (every case's JSON and summary.json: the device tool returns at most 8 files);
# with PROFILE set, $OUT/ncu.tgz (Nsight Compute on the variants it names; see the end).
# bench/gpu/results.py turns them into bench/results/h100-<date>.json and the docs' tables.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${OUT:-${1:-/tmp/h100-out}}"
mkdir -p "$out"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv >"$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
# The input generators (Python and, where installed, numpy) against each other and the reference
# draws: if they disagree here, every emulator comparison below is void (the timings are not).
python3 "$root/bench/gpu/crosscheck.py" selftest 2>&1 | tee -a "$out/gpu.txt"
# CHECKS_TIMEOUT (seconds, default none): stop the checks there, so that what they wrote is still
# packed below when the device tool's own limit would otherwise cut the whole command.
timeout "${CHECKS_TIMEOUT:-0}" python3 "$root/bench/gpu/h100_checks.py" "$root/bench/gpu/cases" --out "$out/res" \
  --runs "${RUNS:-100}" --warmup "${WARMUP:-10}" --case-timeout "${CASE_TIMEOUT:-120}" ${ONLY:+--only "$ONLY"} \
  ${SAVE_OUTPUTS:+--save-outputs} \
  2>&1 | tee "$out/log.txt"
rc=${PIPESTATUS[0]}
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv,noheader >>"$out/gpu.txt" 2>&1
tar -C "$out" -czf "$out/res.tgz" res && rm -rf "$out/res"
# PROFILE="CASE:VARIANT ..." (case folders under bench/gpu/cases): Nsight Compute's full set on
# each, the first launch skipped; $OUT/ncu.tgz gets each report and its details and raw pages.
if [ -n "${PROFILE:-}" ]; then
  ncu="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
  mkdir -p "$out/ncu"
  for item in $PROFILE; do
    case_dir="$root/bench/gpu/cases/${item%%:*}"
    variant="${item##*:}"
    name="$(echo "${item%%:*}-$variant" | tr '/' '_')"
    kernel="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kernel"])' "$case_dir/case.json")"
    echo "== ncu $item" | tee -a "$out/log.txt"
    timeout "${PROFILE_TIMEOUT:-120}" "$ncu" --set full --import-source no -k "$kernel" -s 1 -c 1 \
      -f -o "$out/ncu/$name" python3 "$root/bench/gpu/profile_variant.py" "$case_dir" "$variant" \
      >"$out/ncu/$name.log" 2>&1 || { echo "ncu failed on $item (rc $?)" | tee -a "$out/log.txt"; tail -5 "$out/ncu/$name.log"; continue; }
    "$ncu" -i "$out/ncu/$name.ncu-rep" --page details >"$out/ncu/$name.details.txt" 2>&1
    "$ncu" -i "$out/ncu/$name.ncu-rep" --page raw --csv >"$out/ncu/$name.raw.csv" 2>&1
    grep -E "Duration|Registers Per|Achieved Occupancy|Memory Throughput|L1/TEX Hit|L2 Hit" \
      "$out/ncu/$name.details.txt" | head -12 | tee -a "$out/log.txt"
  done
  tar -C "$out" -czf "$out/ncu.tgz" ncu && rm -rf "$out/ncu"
fi
exit "$rc"
