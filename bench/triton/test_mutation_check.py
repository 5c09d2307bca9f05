#!/usr/bin/env python3
"""Tests that bench/triton/mutation_check.py can fail: a drop-in that changes what a kernel
computes, one that exits unlike ptxas and one that builds worse are each reported as FAIL, and
the real drop-in on the same kernel is not.

    python3 bench/triton/test_mutation_check.py [--warpsmith BIN]   (scripts/test.sh runs it)

Uses Triton's layer norm for sm_80 from tests/data/sass_triton, ptxas and cuobjdump from
scripts/setup.sh; prints SKIPPED and passes when one of them is missing.
"""

import argparse
import os
import random
import stat
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutation_check as mc  # noqa: E402

ROOT = mc.ROOT
FIXTURE = os.path.join(ROOT, "tests", "data", "sass_triton", "sm_80", "layer_norm_4096")
META = {"kernel": "layer_norm_rows", "shared": 32, "threads": 256}

# A stand-in for `warpsmith`: its `ptxas` subcommand edits the PTX the way $EDIT says and runs
# the real ptxas; every other subcommand is the real warpsmith's.
FAKE = """#!/bin/sh
if [ "$1" != ptxas ]; then exec "{real}" "$@"; fi
shift
if [ "$EDIT" = exit ]; then "{ptxas}" "$@"; exit 7; fi
out=""; args=""
for a in "$@"; do
  case "$a" in
    *.ptx) sed "$EDIT" "$a" > "$a.fake.ptx"; args="$args $a.fake.ptx" ;;
    *) args="$args $a" ;;
  esac
done
exec "{ptxas}" $args
"""


class MutationCheckFails(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="warpsmith-test-mutation-")
        fake = os.path.join(self.tmp.name, "fake-warpsmith")
        with open(fake, "w") as f:
            f.write(FAKE.format(real=REAL, ptxas=mc.PTXAS))
        os.chmod(fake, os.stat(fake).st_mode | stat.S_IEXEC)
        self.fake = fake
        # No mutation: the kernel as Triton made it, so only the stand-in's edit differs.
        self.mutate = mc.mutate
        mc.mutate = lambda text, rng: (text, [])

    def tearDown(self):
        mc.mutate = self.mutate
        os.environ.pop("EDIT", None)
        self.tmp.cleanup()

    def check(self, binary, edit):
        mc.BIN = binary
        os.environ["EDIT"] = edit
        work = os.path.join(self.tmp.name, "work")
        os.makedirs(work, exist_ok=True)
        args = argparse.Namespace(arch="sm_80")
        return mc.check_one("layer_norm_4096", FIXTURE + ".ptx", FIXTURE + ".spec.json", META,
                            args, random.Random(1), work)

    def test_a_changed_result_fails(self):
        # The row's first sum becomes a difference: another mean on every row.
        outcome, detail, text = self.check(self.fake, "0,/add.f32/s//sub.f32/")
        self.assertEqual(outcome, "FAIL", detail)
        self.assertIn("DIFFERENT", detail)
        self.assertIsNotNone(text)

    def test_another_exit_status_fails(self):
        outcome, detail, _ = self.check(self.fake, "exit")
        self.assertEqual(outcome, "FAIL", detail)
        self.assertIn("ptxas exits 0, the drop-in 7", detail)

    def test_a_worse_build_fails(self):
        # 40000 B of static shared memory: fewer blocks per SM (occupancy 75 % -> 50 %).
        pad = ("/^\\.reqntid 256$/{n;s/^{$/{\\n.shared .align 4 .b8 warpsmith_pad[40000];\\n"
               ".reg .b32 %wpad;\\nmov.u32 %wpad, 0;\\nst.shared.u32 [warpsmith_pad], %wpad;/}")
        outcome, detail, _ = self.check(self.fake, pad)
        self.assertEqual(outcome, "FAIL", detail)
        self.assertIn("worse than ptxas alone", detail)

    def test_the_drop_in_passes(self):
        outcome, detail, text = self.check(REAL, "")
        self.assertNotEqual(outcome, "FAIL", detail)
        self.assertIsNone(text)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--warpsmith", default=mc.BIN)
    known, rest = ap.parse_known_args()
    REAL = os.path.abspath(known.warpsmith)
    missing = [p for p in (REAL, mc.PTXAS, mc.CUOBJDUMP) if not os.access(p, os.X_OK)]
    if missing:
        print(f"SKIPPED: not found: {', '.join(missing)} (test_mutation_check)")
        sys.exit(0)
    unittest.main(argv=[sys.argv[0]] + rest)
