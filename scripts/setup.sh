#!/usr/bin/env bash
# Makes a fresh Debian 12 machine ready to build and test warpsmith. Idempotent: every step checks
# first and does nothing when its work is already done.
#
#   1. Debian packages: LLVM 22 (headers, libraries, opt/llc/FileCheck/lit), clang 22, Z3, and
#      what a bare machine lacks to build at all (C/C++ toolchain, pip, curl).
#   2. NVIDIA command-line tools from PyPI (ptxas + libdevice, nvdisasm, cuobjdump) into the
#      git-ignored project-local folder .tools/nvidia (never into the system Python), and NVRTC
#      (NVIDIA's CUDA front end as a library: the tests compile the bench kernels with it too,
#      scripts/compile-kernels-nvrtc.py).
#   2b. Triton (pinned, from PyPI, no dependencies) into .tools/triton (3.6.0),
#       .tools/triton-3.9 (3.9.0) and .tools/triton-3.3 (3.3.1) for the Triton suite.
#   2c. CUTLASS 4.2's headers (PyPI nvidia-cutlass) into .tools/cutlass for tests/cutlass_kernels.rs.
#   3. The Rust toolchain: rustup's stable toolchain with clippy and rustfmt when cargo is
#      missing; the clippy/rustfmt components when rustup is there but they are not.
#   4. A CUDA toolkit layout for clang in .tools/cuda (headers, libdevice, ptxas, fatbinary,
#      libcudart) assembled from NVIDIA wheels, so CMake's CUDA language works with clang-22
#      (docs/build-systems.md).
#
# Environment: WARPSMITH_SKIP_APT=1 skips step 1 (for machines where LLVM 22 comes from elsewhere).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/.tools"

log() { printf '[setup] %s\n' "$*" >&2; }

# ---- 1. Debian packages ------------------------------------------------------------------------
apt_packages=(llvm-22-dev llvm-22-tools clang-22 libz3-dev libclang-rt-22-dev python3-venv python3-pip
  build-essential ca-certificates curl)
apt_packages+=(cmake) # the CMake package and its sample project (cmake/, tests/cmake)
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
nvidia_wheels=(nvidia-cuda-nvcc-cu12==12.9.86 nvidia-cuda-nvdisasm==13.5.37 nvidia-cuda-cuobjdump==13.5.37
  nvidia-cuda-nvrtc-cu12==12.9.86)
stamp="$tools/nvidia/.installed"
want="${nvidia_wheels[*]}"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
  log "installing NVIDIA wheels into .tools/nvidia: $want"
  rm -rf "$tools/nvidia.tmp"
  python3 -m pip install -q --disable-pip-version-check --no-deps --target "$tools/nvidia.tmp" "${nvidia_wheels[@]}"
  # NVRTC's ".alt" build (for programs that load two NVRTCs at once) is not used: 110 MB less.
  rm -f "$tools/nvidia.tmp"/nvidia/cuda_nvrtc/lib/*.alt.so*
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
# Three pinned versions, each installed with --no-deps (it needs nothing else to compile kernels: no
# torch, no CUDA driver, no GPU) into a git-ignored folder that scripts put on PYTHONPATH:
# - Triton 3.6.0 in .tools/triton: the version issue 12 was reported against; about 640 MB
#   unpacked (its own LLVM/MLIR library and a CUDA 12.8 ptxas/cuobjdump/nvdisasm);
# - Triton 3.9.0 in .tools/triton-3.9: the newest on PyPI (Dec 2026), which calls ptxas
#   differently: from sm_90 on it runs its CUDA 13.4 `ptxas-blackwell`
#   (TRITON_PTXAS_BLACKWELL_PATH) on PTX ISA 9.4, and passes --regAllocOptLevel=2; about 1 GB;
# - Triton 3.3.1 in .tools/triton-3.3: what PyTorch 2.7 ships, before `knobs` and the stages
#   hook, with CUDA 12.4's ptxas for every architecture; about 540 MB.
# WARPSMITH_SKIP_TRITON=1 skips them all (the Triton steps of scripts/test.sh then report SKIPPED).
# One pinned wheel, --no-deps, into .tools/FOLDER (replaced whole; a stamp names the wheel).
install_wheel() { # WHEEL FOLDER [MORE_WHEELS...]
  local wheel="$1" dir="$tools/$2" stamp="$tools/$2/.installed"
  local more=("${@:3}")
  if ((${#more[@]})); then wheel="$wheel ${more[*]}"; fi
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$wheel" ]]; then
    log "present: $wheel in .tools/$2"
    return
  fi
  log "installing $wheel into .tools/$2"
  rm -rf "$dir.tmp"
  python3 -m pip install -q --disable-pip-version-check --no-deps --target "$dir.tmp" "$1" \
    "${more[@]}"
  # Triton's bundled ptxas, cuobjdump and nvdisasm lose their mode in the wheel.
  for t in "$dir.tmp"/triton/backends/nvidia/bin/*; do
    if [[ -f "$t" ]]; then chmod +x "$t"; fi
  done
  rm -rf "$dir"
  mv "$dir.tmp" "$dir"
  printf '%s' "$wheel" >"$stamp"
}
if [[ "${WARPSMITH_SKIP_TRITON:-0}" == 1 ]]; then
  log "Triton skipped (WARPSMITH_SKIP_TRITON=1)"
else
  install_wheel triton==3.6.0 triton
  install_wheel triton==3.9.0 triton-3.9
  install_wheel triton==3.3.1 triton-3.3
fi

# ---- 2c. CUTLASS headers from PyPI (tests/cutlass_kernels.rs) ---------------------------------
# NVIDIA's CUTLASS 4.2 (`nvidia-cutlass`, 6 MB, --no-deps): its C++ headers under
# cutlass_library/source/include, to compile two CUTLASS 2.x sm_80 GEMMs and a CUTLASS 3.x sm_90
# warp-specialised GEMM (TMA, wgmma, setmaxnreg) with clang 22 as test inputs nobody wrote for us.
install_wheel nvidia-cutlass==4.2.0.0 cutlass

# ---- 2d. Liger-Kernel from PyPI (tests/triton/liger_suite.py) ----------------------------------
# LinkedIn's Triton kernels for LLM training (`liger-kernel`, pure Python, --no-deps; `packaging`,
# which its modules import): Triton code nobody wrote for us, compiled by the Triton above. Its
# modules import torch for their host code only; tests/triton/stand_in/torch stands in for it.
if [[ "${WARPSMITH_SKIP_TRITON:-0}" != 1 ]]; then
  install_wheel liger-kernel==0.8.5 liger packaging==25.0
fi

# ---- 2e. FlagGems from PyPI (tests/triton/flaggems_suite.py) -----------------------------------
# BAAI's Triton implementations of PyTorch operators (`flag-gems`, pure Python, 2 MB, --no-deps,
# with `packaging`): a second foreign Triton corpus. Its package set-up needs torch and a device;
# tests/triton/flaggems_loader.py imports the op modules without either.
if [[ "${WARPSMITH_SKIP_TRITON:-0}" != 1 ]]; then
  install_wheel flag-gems==5.0.2 flaggems packaging==25.0
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

# ---- 4. CUDA toolkit layout for clang ----------------------------------------------------------
# clang compiles whole CUDA programs (host and device) only against a CUDA installation
# (--cuda-path): include/ (CUDA runtime, crt, CCCL's nv/target, and curand_mtgp32_kernel.h, which
# clang's CUDA wrapper header includes), nvvm/libdevice, bin/ptxas, bin/fatbinary and lib64/
# (libcudart). CMake 3.25 also locates the toolkit through bin/nvcc: the layout's bin/nvcc is a
# small script that answers CMake's two probes (`nvcc -v`: the root; `nvcc --version`: ptxas's
# version) and refuses anything else (there is no nvcc here). The layout is symbolic links into .tools/cuda-wheels; what the
# layout does not use (curand's libraries, CUDA 13's nvcc, nvlink and ptxas) is deleted.
# fatbinary comes from CUDA 13.5 (the 12.9 wheels have none); ptxas stays 12.9.
cuda_wheels=(nvidia-cuda-runtime-cu12==12.9.79 nvidia-cuda-cccl-cu12==12.9.27
  nvidia-curand-cu12==10.3.10.19 nvidia-cuda-nvcc==13.5.37)
cuda="$tools/cuda"
cstamp="$tools/cuda-wheels/.installed"
cwant="${cuda_wheels[*]}"
if [[ ! -f "$cstamp" || "$(cat "$cstamp")" != "$cwant" || ! -e "$cuda/bin/ptxas" ]]; then
  log "assembling the CUDA toolkit layout .tools/cuda from: $cwant"
  rm -rf "$tools/cuda-wheels.tmp" "$cuda"
  python3 -m pip install -q --disable-pip-version-check --no-deps --target "$tools/cuda-wheels.tmp" "${cuda_wheels[@]}"
  w="$tools/cuda-wheels.tmp/nvidia"
  rm -rf "$w/curand/lib" "$w/cu13/bin/"{nvcc,nvcc.profile,nvlink,ptxas,cudafe++,bin2c,__nvcc_device_query,crt}
  rm -rf "$tools/cuda-wheels"
  mv "$tools/cuda-wheels.tmp" "$tools/cuda-wheels"
  w="$tools/cuda-wheels/nvidia"
  nvcc12="$tools/nvidia/nvidia/cuda_nvcc"
  mkdir -p "$cuda/bin" "$cuda/include" "$cuda/lib64" "$cuda/nvvm"
  for d in "$w/cuda_runtime/include" "$nvcc12/include" "$w/cuda_cccl/include" "$w/curand/include"; do
    for f in "$d"/*; do
      case "${f##*/}" in __init__.py | __pycache__) continue ;; esac
      ln -sfn "$f" "$cuda/include/"
    done
  done
  for f in "$w/cuda_runtime/lib"/*; do ln -sfn "$f" "$cuda/lib64/"; done
  ln -sfn libcudart.so.12 "$cuda/lib64/libcudart.so"
  ln -sfn "$nvcc12/nvvm/libdevice" "$cuda/nvvm/libdevice"
  chmod +x "$w/cu13/bin/fatbinary"
  ln -sfn "$w/cu13/bin/fatbinary" "$cuda/bin/fatbinary"
  for t in ptxas nvdisasm cuobjdump; do ln -sfn "$tools/bin/$t" "$cuda/bin/$t"; done
  printf '%s' "$cwant" >"$cstamp"
else
  log "CUDA toolkit layout present"
fi

# Written on every run, so a changed script reaches existing layouts.
cat >"$cuda/bin/nvcc" <<'NVCC'
#!/bin/sh
# Not NVIDIA's nvcc: warpsmith's CUDA layout for clang (scripts/setup.sh) has none. CMake finds a
# clang CUDA toolkit through nvcc: `nvcc -v` must name the toolkit root in a `#$ TOP=` line and
# `nvcc --version` gives the toolkit version. This answers those two probes (the version is the
# layout's ptxas's) and refuses every other use.
top="$(cd "$(dirname "$0")/.." && pwd)"
case "$1" in
  -v)
    echo "#\$ TOP=$top"
    echo "#\$ NVVMIR_LIBRARY_DIR=$top/nvvm/libdevice"
    exit 0 ;;
  --version) exec "$top/bin/ptxas" --version ;;
esac
echo "nvcc: $top is a CUDA layout for clang without nvcc (see warpsmith's docs/build-systems.md)" >&2
exit 1
NVCC
chmod +x "$cuda/bin/nvcc"
log "ready: $("$tools/bin/ptxas" --version | tail -n1)"
