#!/usr/bin/env python3
"""Unit tests of the rules bench/triton/never_worse.py judges kernels by (launch legality after
Triton's launcher, worse/equal/better, the issue-12 goal, reading `cuobjdump -res-usage`), and of
what the suite's compiler reads of a Triton version (which cases it compiles, how many scratch
pointers a kernel takes).

    python3 bench/triton/test_never_worse.py      (no Triton needed; scripts/test.sh runs it)
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                "triton"))
import foreign  # noqa: E402
import never_worse as nw  # noqa: E402
import suite  # noqa: E402


def side(occ, local, legal=True):
    return {"occupancy": occ, "local": local, "legal": legal}


class LaunchLegality(unittest.TestCase):
    def test_issue_12_attention_sm80(self):
        # Issue 12: +48656 B static with 49152 B dynamic = 97808 B, no opt-in: the launch fails.
        legal, limit = nw.launch_legal("sm_80", 48656, 49152)
        self.assertFalse(legal)
        self.assertEqual(limit, 48 * 1024)

    def test_default_limit_is_inclusive(self):
        self.assertTrue(nw.launch_legal("sm_80", 0, 49152)[0])
        self.assertTrue(nw.launch_legal("sm_90", 16384, 32768)[0])
        self.assertFalse(nw.launch_legal("sm_90", 16385, 32768)[0])

    def test_opt_in_above_48_kib(self):
        # D > 48 KiB: the launcher raises the limit to the opt-in maximum minus S.
        self.assertTrue(nw.launch_legal("sm_80", 48704, 65536)[0])
        self.assertTrue(nw.launch_legal("sm_80", 0, 163 * 1024)[0])
        self.assertFalse(nw.launch_legal("sm_80", 1, 163 * 1024)[0])
        self.assertTrue(nw.launch_legal("sm_90", 49904, 147456)[0])
        self.assertFalse(nw.launch_legal("sm_90", 90000, 147456)[0])
        self.assertEqual(nw.launch_legal("sm_86", 0, 50000)[1], 99 * 1024)


def build(occ, local, smem, dynamic=0):
    return {"occupancy": occ, "local": local, "static_smem": smem, "dynamic_smem": dynamic}


class BelowDemoteAlone(unittest.TestCase):
    def test_flash_attention_d128_causal_sm90(self):
        # Session 53: spill then demote 40 B local, 17408 B shared; demote alone 0 B, 14352 B.
        self.assertTrue(nw.below(build(0.125, 40, 17408), build(0.125, 0, 14352)))
        self.assertFalse(nw.below(build(0.125, 0, 14352), build(0.125, 40, 17408)))

    def test_occupancy_then_local_then_shared(self):
        self.assertFalse(nw.below(build(0.125, 0, 14352), build(0.125, 0, 14352)))
        # Higher occupancy outranks less local memory.
        self.assertFalse(nw.below(build(0.1875, 40, 2048), build(0.125, 0, 14352)))
        self.assertTrue(nw.below(build(0.125, 0, 2048), build(0.1875, 0, 2048)))
        # At equal occupancy and local memory, less shared memory ranks higher.
        self.assertTrue(nw.below(build(0.125, 0, 20000), build(0.125, 0, 14352)))

    def test_a_grown_launch_counts_its_dynamic_bytes(self):
        # TMA matmul 128x256x64 sm_90 (session 59): the frame in a grown dynamic area (no local
        # memory) outranks part of it in the static area (256 B left in local memory).
        grown = build(0.0625, 0, 1024, 147480 + 79888)
        partial = build(0.0625, 256, 48144, 147480)
        self.assertFalse(nw.below(grown, partial))
        self.assertTrue(nw.below(partial, grown))
        # At equal local memory, growing is shared memory like any other.
        self.assertTrue(nw.below(build(0.0625, 0, 1024, 150000), build(0.0625, 0, 48144, 100000)))


class Verdicts(unittest.TestCase):
    def test_illegal_is_worse_whatever_else(self):
        self.assertEqual(nw.verdict(side(0.125, 0), side(0.25, 0, legal=False)), "worse")

    def test_occupancy_first_then_local_memory(self):
        self.assertEqual(nw.verdict(side(0.125, 0), side(0.0625, 0)), "worse")
        self.assertEqual(nw.verdict(side(0.125, 1384), side(0.1875, 2096)), "better")
        self.assertEqual(nw.verdict(side(0.0625, 1384), side(0.0625, 2096)), "worse")
        self.assertEqual(nw.verdict(side(0.0625, 808), side(0.0625, 608)), "better")
        self.assertEqual(nw.verdict(side(0.375, 0), side(0.375, 0)), "equal")

    def test_goal_only_where_ptxas_spills(self):
        self.assertEqual(nw.goal(side(0.125, 0), side(0.0625, 0)), "-")
        self.assertEqual(nw.goal(side(0.125, 120), side(0.125, 0)), "met")
        self.assertEqual(nw.goal(side(0.125, 120), side(0.0625, 0)), "missed")
        self.assertEqual(nw.goal(side(0.125, 120), side(0.125, 8)), "missed")
        self.assertEqual(nw.goal(side(0.125, 120), side(0.25, 0, legal=False)), "missed")


class ResUsage(unittest.TestCase):
    TEXT = (
        "\nResource usage:\n Common:\n  GLOBAL:0\n Function tiled_matmul:\n"
        "  REG:255 STACK:808 SHARED:1024 LOCAL:0 CONSTANT[0]:592 TEXTURE:0 SURFACE:0 SAMPLER:0\n"
    )

    def test_fields(self):
        self.assertEqual(nw.parse_res_usage(self.TEXT, "tiled_matmul"),
                         {"reg": 255, "stack": 808, "shared": 1024, "local": 0})

    def test_missing_function(self):
        with self.assertRaisesRegex(RuntimeError, "no function softmax_rows"):
            nw.parse_res_usage(self.TEXT, "softmax_rows")


class TritonVersions(unittest.TestCase):
    def test_version_tuple(self):
        self.assertEqual(suite.version_tuple("3.3.1"), (3, 3, 1))
        self.assertEqual(suite.version_tuple("3.6.0+git1234abc"), (3, 6, 0))
        self.assertEqual(suite.version_tuple("3.10.0rc1"), (3, 10, 0))

    def test_descriptor_cases_need_3_4(self):
        tma = next(c for c in suite.CASES if c.name.startswith("matmul_tma"))
        plain = next(c for c in suite.CASES if c.name == "layer_norm_4096")
        self.assertFalse(suite.supported_by(tma, "3.3.1"))
        self.assertTrue(suite.supported_by(tma, "3.4.0"))
        self.assertTrue(suite.supported_by(plain, "3.3.1"))

    def test_scratch_pointers_follow_the_ptx(self):
        ptx = (".visible .entry k(\n\t.param .u64 .ptr .global .align 1 k_param_0,\n"
               "\t.param .u32 k_param_1,\n\t.param .u64 .ptr .global .align 1 k_param_2\n)\n"
               ".reqntid 128\n{\n\tret;\n}\n")
        self.assertEqual(foreign.entry_param_count(ptx, "k"), 3)
        self.assertIsNone(foreign.entry_param_count(ptx, "other"))
        case = foreign.ForeignCase("t", "k:k", (foreign.ptr("x", "fp32", 4), foreign.i32("n", 4)),
                                   {}, 4, (1,))
        self.assertEqual(len(case.launch_spec("k", 128, 0, params=3)["args"]), 3)
        self.assertEqual(len(case.launch_spec("k", 128, 0, params=4)["args"]), 4)
        self.assertEqual(len(case.launch_spec("k", 128, 0, params=2)["args"]), 2)
        self.assertEqual(len(case.launch_spec("k", 128, 0)["args"]), 4)
        for wrong in (1, 5):
            with self.assertRaises(ValueError):
                case.launch_spec("k", 128, 0, params=wrong)


if __name__ == "__main__":
    unittest.main()
