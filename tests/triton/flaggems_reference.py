#!/usr/bin/env python3
"""Checks what the emulators compute for FlagGems' kernels against what the operators mean
(tests/triton/flaggems_suite.py), written here in plain Python.

    python3 tests/triton/flaggems_reference.py --dir OUT --warpsmith target/debug/warpsmith

OUT holds `compile_suite.py --corpus flaggems` outputs in OUT/sm_80 and OUT/sm_90 (NAME.ptx,
NAME.cubin, NAME.spec.json). Each case runs once on the PTX emulator (`warpsmith emulate
NAME.ptx`) and once on the SASS emulator (`warpsmith emulate NAME.cubin`, ptxas's own build),
on its launch; the buffers each leaves are compared with the operator's result on the same
inputs: exactly where the result is exact (argmax, gathers, integer outputs, sums of ones), to
a tolerance where the kernel's order of floating-point operations is its own (scans, Welford,
matrix products). `equiv` proves a rewrite computes the same bytes as the original; this proves
the bytes are the operator's, so that the proof is not about two equal wrong answers.

Philox streams are not recomputed: dropout is checked for what it must satisfy whatever the
stream (each output is 0 or the input scaled by 1/(1-p), the mask says which, about 1-p kept),
and flash attention's log-sum-exp, which dropout does not touch, exactly as the operator's.

Exit status 0 when every check passed, 1 when one failed, 2 for a set-up error.
"""

import argparse
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

FORMATS = {"f32": "f", "f16": "e", "s64": "q", "s32": "i", "u8": "B", "f64": "d"}


def decode(ty, raw):
    """The elements of a buffer of spec type `ty`."""
    if ty == "bf16":
        return [struct.unpack("<f", struct.pack("<I", h << 16))[0]
                for h in struct.unpack(f"<{len(raw) // 2}H", raw)]
    fmt = FORMATS[ty]
    return list(struct.unpack(f"<{len(raw) // struct.calcsize(fmt)}{fmt}", raw))


def e4m3(byte):
    """An fp8 e4m3 (`e4m3fn`) byte as a float."""
    sign = -1.0 if byte & 0x80 else 1.0
    exp, man = (byte >> 3) & 0xF, byte & 7
    if exp == 0:
        return sign * man / 8 * 2.0 ** -6
    return sign * (1 + man / 8) * 2.0 ** (exp - 7)


class Failed(Exception):
    pass


def close(what, got, want, rel, abs_tol=0.0):
    """Every element of `got` within `rel` (relative) or `abs_tol` of `want`."""
    if len(got) != len(want):
        raise Failed(f"{what}: {len(got)} values, expected {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        if not (abs(g - w) <= max(rel * abs(w), abs_tol)):
            raise Failed(f"{what}[{i}] = {g!r}, expected {w!r}")


def equal(what, got, want):
    close(what, got, want, 0.0)


def ref_cumsum_part(a, c):
    block = c["BLOCK_SIZE"]
    inp, n = a["inp"], len(a["inp"])
    out, sums = [], []
    for start in range(0, n, block):
        run = 0.0
        for x in inp[start:start + block]:
            run += x
            out.append(run)
        sums.append(run)
    close("out", a["out"], out, 1e-5, 1e-5)
    close("partial_sum", a["partial_sum"], sums, 1e-5, 1e-5)


def ref_dropout_fwd(a, c):
    n, p = a["N"], a["p"]
    kept = 0
    for i in range(n):
        x, y, m = a["X"][i], a["Y"][i], a["dropout_mask"][i]
        if m not in (0, 1):
            raise Failed(f"dropout_mask[{i}] = {m}")
        want = struct.unpack("<e", struct.pack("<e", x * (1.0 / (1.0 - p))))[0] if m else 0.0
        if abs(y - want) > 2e-3 * abs(want):
            raise Failed(f"Y[{i}] = {y}, mask {m}, X {x}: expected {want}")
        kept += m
    if not 0.6 < kept / n < 0.8:
        raise Failed(f"{kept} of {n} kept at p = {p}")


def ref_argmax_inner(a, c):
    m, n = a["M"], a["N"]
    rows = [a["inp"][r * n:(r + 1) * n] for r in range(m)]
    equal("out_index", a["out_index"], [row.index(max(row)) for row in rows])


def ref_embedding(a, c):
    n = c["N"]
    want = []
    for idx in a["in_ptr"]:
        want += a["weight_ptr"][idx * n:(idx + 1) * n]
    equal("out_ptr", a["out_ptr"], want)


def ref_scatter_add(a, c):
    index_n, inp_n = a["index_dim_n"], a["inp_dim_n"]
    want = [0.0] * len(a["out_ptr"])
    for e in range(a["n_elements"]):
        want[e // index_n * inp_n + a["index_ptr"][e]] += a["src_ptr"][e]
    equal("out_ptr", a["out_ptr"], want)


def ref_nonzero(a, c):
    dims = a["shape"]
    want = []
    for i in range(a["n_elements"]):
        want += [i // dims[1], i % dims[1]]
    equal("out", a["out"], want)


def ref_var_mean(a, c):
    m, n, corr = a["M"], a["N"], a["correction"]
    means, variances = [], []
    for r in range(m):
        row = a["X"][r * n:(r + 1) * n]
        mean = math.fsum(row) / n
        means.append(mean)
        variances.append(math.fsum((x - mean) ** 2 for x in row) / (n - corr))
    close("Mean", a["Mean"], means, 1e-4, 1e-6)
    close("Var", a["Var"], variances, 1e-4, 1e-6)


def matmul(a, b, m, n, k):
    return [math.fsum(a[i * k + t] * b[t * n + j] for t in range(k))
            for i in range(m) for j in range(n)]


def ref_mm(a, c):
    m, n, k = a["M"], a["N"], a["K"]
    close("C", a["C"], matmul(a["A"], a["B"], m, n, k), 2e-3, 2e-3)


def ref_conv2d(a, c):
    n, h, w, co = a["in_n"], a["input_height"], a["input_width"], a["out_c"]
    ci, kh, kw = c["weight_c"], c["weight_height"], c["weight_width"]
    x, wt, bias = a["input_pointer"], a["weight_pointer"], a["bias_pointer"]
    want = []
    for b in range(n):
        for o in range(co):
            for y in range(h):
                for z in range(w):
                    terms = [bias[o]]
                    for i in range(ci):
                        for dy in range(kh):
                            for dz in range(kw):
                                yy, zz = y + dy - 1, z + dz - 1
                                if 0 <= yy < h and 0 <= zz < w:
                                    terms.append(x[((b * ci + i) * h + yy) * w + zz]
                                                 * wt[((o * ci + i) * kh + dy) * kw + dz])
                    want.append(math.fsum(terms))
    close("output_pointer", a["output_pointer"], want, 2e-3, 2e-3)


def ref_index_select(a, c):
    m, n, picked = a["M"], a["N"], a["index_len"]
    want = []
    for r in range(m):
        for idx in a["index"]:
            want.append(a["inp"][r * n + idx] if 0 <= idx < n else 0.0)
    equal("out", a["out"], want)


def ref_hadamard_256(a, c):
    dim = a["stride_x_row"]
    want = []
    for r in range(len(a["X_ptr"]) // dim):
        x = a["X_ptr"][r * dim:(r + 1) * dim]
        h = 1
        while h < dim:
            for i in range(0, dim, 2 * h):
                for j in range(i, i + h):
                    x[j], x[j + h] = x[j] + x[j + h], x[j] - x[j + h]
            h *= 2
        want += [v * c["SCALE"] for v in x]
    # bf16 between stages: eight roundings of 2^-8.
    close("OUT_ptr", a["OUT_ptr"], want, 0.0, 0.05)


def ref_w8a8_fp8(a, c):
    m, n, k, g = a["M"], a["N"], a["K"], a["group_k"]
    av, bv = [e4m3(v) for v in a["A"]], [e4m3(v) for v in a["B"]]
    kb = k // g
    want = []
    for i in range(m):
        for j in range(n):
            acc = 0.0
            for blk in range(kb):
                part = math.fsum(av[i * k + t] * bv[j * k + t] for t in range(blk * g, (blk + 1) * g))
                acc += part * a["As"][i * kb + blk] * a["Bs"][(j // a["group_n"]) * kb + blk]
            want.append(acc)
    close("C", a["C"], want, 1e-2, 1e-2)


def ref_flash_fwd(a, c):
    # Causal log-sum-exp per (head, row): scores scaled by scale_softmax, keys up to the row.
    h, hk, d, s = c["h"], c["hk"], c["d"], a["seqlen_q"]
    scale = c["scale_softmax"]
    want_lse, got_lse = [], []
    for head in range(h):
        kv = head // (h // hk)
        for row in range(s):
            q = a["q_ptr"][(row * h + head) * d:(row * h + head + 1) * d]
            scores = []
            for col in range(row + 1):
                key = a["k_ptr"][(col * hk + kv) * d:(col * hk + kv + 1) * d]
                scores.append(scale * math.fsum(x * y for x, y in zip(q, key)))
            top = max(scores)
            want_lse.append(top + math.log(math.fsum(math.exp(v - top) for v in scores)))
            got_lse.append(a["softmax_lse_ptr"][head * s + row])  # (batch, head, row)
    close("softmax_lse_ptr", got_lse, want_lse, 1e-4, 1e-4)


def ref_cummax_part(a, c):
    block = c["BLOCK_SIZE"]
    inp = a["inp"]
    out, idx, top, top_idx = [], [], [], []
    for start in range(0, len(inp), block):
        best, at = -math.inf, -1
        for i in range(start, min(start + block, len(inp))):
            if inp[i] >= best:  # ties: the right index
                best, at = inp[i], i
            out.append(best)
            idx.append(at)
        top.append(best)
        top_idx.append(at)
    equal("out", a["out"], out)
    equal("out_indices", a["out_indices"], idx)
    equal("partial_max", a["partial_max"], top)
    equal("partial_max_indices", a["partial_max_indices"], top_idx)


def ref_topk_stage1(a, c):
    n, chunk, k = c["N"], c["CHUNK_SIZE"], a["k"]
    rows = len(a["x_ptr"]) // n
    values, indices = [], []
    for r in range(rows):
        for start in range(0, n, chunk):
            part = a["x_ptr"][r * n + start:r * n + min(start + chunk, n)]
            order = sorted(range(len(part)), key=lambda i: -part[i])[:k]
            values += [part[i] for i in order]
            indices += [start + i for i in order]
    equal("y_ptr", a["y_ptr"], values)
    equal("index_ptr", a["index_ptr"], indices)


def ref_topk_stage2(a, c):
    n, k = c["N"], c["k"]
    values, indices = [], []
    for r in range(len(a["chunk_x"]) // n):
        xs, ids = a["chunk_x"][r * n:(r + 1) * n], a["chunk_index"][r * n:(r + 1) * n]
        order = sorted(range(n), key=lambda i: -xs[i])[:k]
        values += [xs[i] for i in order]
        indices += [ids[i] for i in order]
    equal("y_ptr", a["y_ptr"], values)
    equal("index_ptr", a["index_ptr"], indices)


def ref_isin_search(a, c):
    table = set(a["in1_sorted_ptr"])
    equal("out_ptr", a["out_ptr"], [1 if v in table else 0 for v in a["in0_ravel_ptr"]])


def run(warpsmith, spec_path, binary):
    """The buffers `warpsmith emulate` leaves: {argument index: bytes}."""
    with tempfile.TemporaryDirectory() as out:
        p = subprocess.run([warpsmith, "emulate", "--launch", spec_path, "--out", out, binary],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise Failed(f"warpsmith emulate {os.path.basename(binary)}: "
                         f"{(p.stderr or p.stdout).strip().splitlines()[-1:]}")
        bufs = {}
        for f in os.listdir(out):
            if f.startswith("arg") and f.endswith(".bin"):
                with open(os.path.join(out, f), "rb") as fh:
                    bufs[int(f[3:-4])] = fh.read()
        return bufs


def arguments(case, spec, bufs):
    """{argument name: decoded buffer or scalar} in the case's own names."""
    named = {}
    for i, (arg, entry) in enumerate(zip(case.runtime_args(), spec["args"])):
        if "buffer" in entry:
            named[arg.name] = decode(entry["buffer"]["type"], bufs[i])
        else:
            named[arg.name] = entry["scalar"]["value"]
    return named


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", required=True, help="compile_suite.py --corpus flaggems outputs "
                    "(DIR/sm_80, DIR/sm_90)")
    ap.add_argument("--warpsmith", default=os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                                        "target", "debug", "warpsmith"))
    opts = ap.parse_args()
    sys.path.insert(0, HERE)
    try:
        import flaggems_suite
    except ImportError as e:
        print(f"flaggems_reference: cannot load the FlagGems corpus: {e}", file=sys.stderr)
        return 2
    checked = failed = 0
    for arch in ("sm_80", "sm_90"):
        folder = os.path.join(opts.dir, arch)
        for case in flaggems_suite.CASES:
            spec_path = os.path.join(folder, f"{case.name}.spec.json")
            check = globals().get(f"ref_{case.name.removeprefix('fg_')}")
            if check is None:
                print(f"flaggems_reference: no reference for {case.name}", file=sys.stderr)
                return 2
            if not os.path.exists(spec_path):
                continue
            with open(spec_path) as f:
                spec = json.load(f)
            for binary in (f"{case.name}.ptx", f"{case.name}.cubin"):
                try:
                    bufs = run(opts.warpsmith, spec_path, os.path.join(folder, binary))
                    check(arguments(case, spec, bufs), case.constexprs)
                    verdict = "ok"
                except Failed as e:
                    verdict, failed = f"FAILED: {e}", failed + 1
                checked += 1
                print(f"  {arch} {binary:32} {verdict}")
    if checked == 0:
        print(f"flaggems_reference: no cases under {opts.dir}", file=sys.stderr)
        return 2
    print(f"flaggems_reference: {checked - failed} of {checked} emulations match the operators")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
