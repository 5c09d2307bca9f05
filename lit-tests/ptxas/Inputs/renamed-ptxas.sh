#!/bin/sh
# A stand-in for CUDA 13's `ptxas-blackwell` (triton-3.9.test): runs NVIDIA's ptxas named by
# REAL_PTXAS with the same arguments and prints its messages under the name ptxas-blackwell, as a
# ptxas installed under that name does (`ptxas-blackwell info    : Used 40 registers, …`).
# `--version` answers with a marker line first, so a test can tell which assembler ran.
case " $* " in
  *" --version "*) echo "renamed stand-in of $REAL_PTXAS" ;;
esac
err=$(mktemp) || exit 2
"$REAL_PTXAS" "$@" 2>"$err"
rc=$?
sed 's/^ptxas /ptxas-blackwell /' "$err" >&2
rm -f "$err"
exit $rc
