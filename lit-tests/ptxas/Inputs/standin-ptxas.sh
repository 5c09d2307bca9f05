#!/bin/sh
# A stand-in for NVIDIA's ptxas (fallback.test): rejects the rewritten file the wrapper writes for
# chain.ptx (warpsmith-ptxas-PID-N-chain.ptx); answers `-v` with the same figures for every file,
# so the never-worse guard sees no change; accepts anything else.
verbose=0
for a in "$@"; do
  case "$a" in
    *warpsmith-ptxas-*-chain.ptx) echo "ptxas fatal   : rejected $a" >&2; exit 3 ;;
    -v) verbose=1 ;;
  esac
done
if [ "$verbose" = 1 ]; then
  cat >&2 <<'FIGURES'
ptxas info    : Compiling entry function 'chain' for 'sm_80'
ptxas info    : Function properties for chain
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 20 registers, used 0 barriers, 360 bytes cmem[0]
FIGURES
  exit 0
fi
echo "stand-in ptxas assembled $*"
