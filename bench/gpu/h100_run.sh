#!/usr/bin/env bash
# Runs every prepared GPU check on the device machine, in one call (bench/gpu/prepare.py made the
# cases on a machine without a GPU; the device tool carries bench/gpu/cases):
#
#   bash bench/gpu/h100_run.sh            # results under $OUT (the device tool's folder)
#
# Writes $OUT/gpu.txt (the card and its clocks as found), $OUT/log.txt (one line per case) and
# $OUT/res.tgz (every case's JSON and summary.json: the device tool returns at most 8 files).
# bench/gpu/results.py turns them into bench/results/h100-<date>.json and the docs' tables.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${OUT:-${1:-/tmp/h100-out}}"
mkdir -p "$out"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv >"$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
python3 "$root/bench/gpu/h100_checks.py" "$root/bench/gpu/cases" --out "$out/res" \
  --runs "${RUNS:-100}" --warmup "${WARMUP:-10}" --case-timeout "${CASE_TIMEOUT:-120}" ${ONLY:+--only "$ONLY"} \
  ${SAVE_OUTPUTS:+--save-outputs} \
  2>&1 | tee "$out/log.txt"
rc=${PIPESTATUS[0]}
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv,noheader >>"$out/gpu.txt" 2>&1
tar -C "$out" -czf "$out/res.tgz" res && rm -rf "$out/res"
exit "$rc"
