#!/usr/bin/env bash
# Makes a fresh Debian 12 machine ready to build and test warpsmith. Idempotent: every step checks
# first and does nothing when its work is already done.
#
#   1. Debian packages: LLVM 22 (headers, libraries, opt/llc/FileCheck/lit), clang 22, Z3, and
#      what a bare machine lacks to build at all (C/C++ toolchain, pip, curl).
#   2. NVIDIA command-line tools from PyPI (ptxas + libdevice, nvdisasm, cuobjdump) into the
#      git-ignored project-local folder .tools/nvidia (never into the system Python).
#   2b. Triton (pinned, from PyPI, no dependencies) into .tools/triton for the Triton suite.
#   3. The Rust toolchain: rustup's stable toolchain with clippy and rustfmt when cargo is
#      missing; the clippy/rustfmt components when rustup is there but they are not.
#
# Environment: WARPSMITH_SKIP_APT=1 skips step 1 (for machines where LLVM 22 comes from elsewhere).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/.tools"

log() { printf '[setup] %s\n' "$*" >&2; }

# ---- 1. Debian packages ------------------------------------------------------------------------
apt_packages=(llvm-22-dev llvm-22-tools clang-22 libz3-dev libclang-rt-22-dev python3-venv python3-pip
  build-essential ca-certificates curl)
if [[ "${WARPSMITH_SKIP_APT:-0}" != 1 ]]; then
  missing=()
  for p in "${apt_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if ((${#missing[@]})); then
    sudo=""
    if [[ $(id -u) != 0 ]]; then sudo="sudo"; fi
    log "installing Debian packages: ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    log "Debian packages present"
  fi
fi

# ---- 2. NVIDIA tools from PyPI -----------------------------------------------------------------
# Pinned: ptxas 12.9 is the assembler every figure in docs/ was measured with.
nvidia_wheels=(nvidia-cuda-nvcc-cu12==12.9.86 nvidia-cuda-nvdisasm==13.5.37 nvidia-cuda-cuobjdump==13.5.37)
stamp="$tools/nvidia/.installed"
want="${nvidia_wheels[*]}"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
  log "installing NVIDIA wheels into .tools/nvidia: $want"
  rm -rf "$tools/nvidia.tmp"
  python3 -m pip install -q --disable-pip-version-check --no-deps --target "$tools/nvidia.tmp" "${nvidia_wheels[@]}"
  rm -rf "$tools/nvidia"
  mv "$tools/nvidia.tmp" "$tools/nvidia"
  printf '%s' "$want" >"$stamp"
else
  log "NVIDIA wheels present"
fi

# Stable paths for the tools: .tools/bin/{ptxas,nvdisasm,cuobjdump}.
mkdir -p "$tools/bin"
for t in ptxas nvdisasm cuobjdump; do
  f=$(find "$tools/nvidia" -type f -path "*/bin/$t" | head -n1)
  if [[ -z "$f" ]]; then log "error: $t not found in the installed wheels"; exit 1; fi
  chmod +x "$f"
  ln -sfn "$f" "$tools/bin/$t"
done

# ---- 2b. Triton from PyPI (the Triton suite: tests/triton, bench/triton) ----------------------
# Pinned: Triton 3.6.0 is the version issue 12 was reported against. Installed with --no-deps
# (it needs nothing else to compile kernels: no torch, no CUDA driver, no GPU) into the git-ignored
# .tools/triton; scripts put it on PYTHONPATH. About 640 MB unpacked (its own LLVM/MLIR library and
# a CUDA 12.8 ptxas/cuobjdump/nvdisasm). WARPSMITH_SKIP_TRITON=1 skips it (the `triton` step of
# scripts/test.sh then reports SKIPPED).
triton_wheel=triton==3.6.0
stamp="$tools/triton/.installed"
if [[ "${WARPSMITH_SKIP_TRITON:-0}" == 1 ]]; then
  log "Triton skipped (WARPSMITH_SKIP_TRITON=1)"
elif [[ ! -f "$stamp" || "$(cat "$stamp")" != "$triton_wheel" ]]; then
  log "installing $triton_wheel into .tools/triton"
  rm -rf "$tools/triton.tmp"
  python3 -m pip install -q --disable-pip-version-check --no-deps --target "$tools/triton.tmp" "$triton_wheel"
  for t in ptxas cuobjdump nvdisasm; do chmod +x "$tools/triton.tmp/triton/backends/nvidia/bin/$t"; done
  rm -rf "$tools/triton"
  mv "$tools/triton.tmp" "$tools/triton"
  printf '%s' "$triton_wheel" >"$stamp"
else
  log "Triton present ($triton_wheel)"
fi

# ---- 3. Rust toolchain -------------------------------------------------------------------------
# Callers add ~/.cargo/bin to their own PATH (scripts/test.sh and scripts/demo.sh do).
if ! command -v cargo >/dev/null 2>&1 && [[ -x "$HOME/.cargo/bin/cargo" ]]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! command -v cargo >/dev/null 2>&1; then
  log "installing the Rust toolchain with rustup (stable, minimal profile, clippy + rustfmt)"
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs |
    sh -s -- -y --no-modify-path --profile minimal --component clippy,rustfmt >/dev/null
  export PATH="$HOME/.cargo/bin:$PATH"
elif command -v rustup >/dev/null 2>&1; then
  installed="$(rustup component list --installed 2>/dev/null || true)"
  for c in clippy rustfmt; do
    if ! grep -q "^$c" <<<"$installed"; then
      log "adding the rustup component $c"
      rustup component add "$c" >/dev/null
    fi
  done
fi
log "Rust: $(cargo --version)"

log "ready: $("$tools/bin/ptxas" --version | tail -n1)"
