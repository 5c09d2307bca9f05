#!/usr/bin/env bash
# Installs warpsmith into PREFIX for other build systems (docs/build-systems.md):
#
#   PREFIX/bin/warpsmith                       the CLI
#   PREFIX/bin/ptxas -> warpsmith              the drop-in assembler (clang --ptxas-path=)
#   PREFIX/lib/libwarpsmith.so                 the LLVM 22 pass plugin (unless --no-plugin)
#   PREFIX/lib/cmake/warpsmith/                warpsmithConfig.cmake, its version file, warpsmith.cmake
#   PREFIX/share/warpsmith/python/             warpsmith_triton.py (each Triton kernel's dynamic
#                                              shared memory for the drop-in; docs/ptxas-wrapper.md)
#
# so that `find_package(warpsmith CONFIG REQUIRED)` works with CMAKE_PREFIX_PATH=PREFIX.
#
# Usage: scripts/install.sh PREFIX [--debug] [--no-plugin]
#   --debug      install the debug build (target/debug) instead of building with --release
#   --no-plugin  build with --no-default-features (no LLVM needed) and install no plugin
# Builds with cargo first (nothing is rebuilt when the build is current). Files are copied to a
# temporary name and renamed, so an interrupted install leaves no half-written file.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
usage() { echo "usage: scripts/install.sh PREFIX [--debug] [--no-plugin]" >&2; exit 2; }

prefix="" profile=release plugin=1
for a in "$@"; do
  case "$a" in
    --debug) profile=debug ;;
    --no-plugin) plugin=0 ;;
    -h | --help) usage ;;
    -*) echo "install.sh: unknown option $a" >&2; usage ;;
    *) if [[ -n "$prefix" ]]; then usage; fi; prefix="$a" ;;
  esac
done
[[ -n "$prefix" ]] || usage
mkdir -p "$prefix"
prefix="$(cd "$prefix" && pwd)"

if ! command -v cargo >/dev/null 2>&1 && [[ -x "$HOME/.cargo/bin/cargo" ]]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi
args=(build --manifest-path "$root/Cargo.toml")
[[ "$profile" == release ]] && args+=(--release)
target="$root/target"
if ! ((plugin)); then
  # Its own target folder: a build without the `llvm` feature would replace target/*/libwarpsmith.so
  # (the plugin the lit tests and the CMake package of the checkout use) with a plain cdylib.
  target="$root/target/no-plugin"
  args+=(--no-default-features)
fi
args+=(--target-dir "$target")
echo "[install] cargo ${args[*]}" >&2
cargo "${args[@]}"

out="$target/$profile"
# put SRC DEST MODE: atomic copy.
put() {
  install -m "$3" "$1" "$2.tmp.$$"
  mv -f "$2.tmp.$$" "$2"
}
mkdir -p "$prefix/bin" "$prefix/lib/cmake/warpsmith"
put "$out/warpsmith" "$prefix/bin/warpsmith" 755
ln -sfn warpsmith "$prefix/bin/ptxas"
if ((plugin)); then
  # Without LLVM 22 cargo builds the cdylib without the C++ half (a warning only); LLVM would
  # refuse such a plugin, so do not install it. The shim's pass names are in the real one
  # (the same test as lit-tests/lit.cfg.py's).
  if ! grep -qa 'print<affine-divergence>' "$out/libwarpsmith.so"; then
    echo "install.sh: $out/libwarpsmith.so was built without the LLVM 22 plugin (see the cargo" \
      "warning; install llvm-22-dev) — or use --no-plugin" >&2
    exit 1
  fi
  put "$out/libwarpsmith.so" "$prefix/lib/libwarpsmith.so" 755
else
  rm -f "$prefix/lib/libwarpsmith.so"
fi
for f in warpsmithConfig.cmake warpsmithConfigVersion.cmake warpsmith.cmake; do
  put "$root/cmake/$f" "$prefix/lib/cmake/warpsmith/$f" 644
done
mkdir -p "$prefix/share/warpsmith/python"
put "$root/python/warpsmith_triton.py" "$prefix/share/warpsmith/python/warpsmith_triton.py" 644
echo "[install] installed warpsmith into $prefix (CMake: CMAKE_PREFIX_PATH=$prefix)" >&2
